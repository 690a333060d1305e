// The studio page: wires the server's state and preview frames to the panels.
//
//   store.js            the server's state (the only truth) and notices
//   connection.js       WebSocket /ws with reconnection, GET /api/state
//   api.js, banner.js   commands (with the CSRF token) and the error banner
//   preview.js          preview frames -> per-camera canvases (WebCodecs H.264 or JPEG)
//   composite.js        the layout as it will be recorded, from the cameras' canvases
//   cameras.js          per-camera tiles: picture, link, clock, telemetry, sound
//   camera-panels.js    in each tile, the camera's panel: zoom, its controls, locks, match
//                       (camera-panel.js, camera-controls.js)
//   take.js, plan.js, layout-controls.js, notices.js, keyboard.js   the controls
//   library.js          the session library (sessions, players, timelines, recompose, delete)

import { stats, Previews, canDecodeH264 } from './preview.js';
import { store, onState, onNotice } from './store.js';
import { Connection } from './connection.js';
import { Composite } from './composite.js';
import { CameraList } from './cameras.js';
import { CameraPanels } from './camera-panels.js';
import { TakeControls } from './take.js';
import { PlanForm } from './plan.js';
import { LayoutControls } from './layout-controls.js';
import { DirectorPanel } from './director.js';
import { PhasePanel } from './phase.js';
import { LivePanel } from './live.js';
import { addNoticeLine } from './notices.js';
import { installShortcuts } from './keyboard.js';
import { Library } from './library.js';

/** ?preview=jpeg|h264|none forces a format (for tests, and for a browser whose H.264 misbehaves). */
async function chooseFormat() {
  const asked = new URLSearchParams(location.search).get('preview');
  if (asked === 'jpeg' || asked === 'none') return asked;
  if (asked === 'h264') return window.isSecureContext && 'VideoDecoder' in window ? 'h264' : 'jpeg';
  return (await canDecodeH264()) ? 'h264' : 'jpeg';
}

function showLink(link) {
  const element = document.getElementById('link');
  element.dataset.state = link.state;
  element.textContent = link.state === 'live' ? 'Live'
    : link.state === 'reconnecting' ? `Reconnecting in ${link.retryInSeconds} s…`
      : 'Connecting…';
  document.body.dataset.link = link.state;
}

async function main() {
  // The three refer to each other only through callbacks that run once frames flow.
  const previews = new Previews({
    canvasFor: (index) => cameras.canvasFor(index),
    codecFor: (index) => store.state?.agents?.find((a) => a.index === index)?.preview?.codec ?? null,
    // A decoder that fell behind asks the camera for a key frame instead of waiting up to
    // a second for the next regular one.
    requestKeyframe: (index) => connection.requestKeyframe(index),
    onDrawn: (index) => {
      cameras.pictureArrived(index);
      composite.requestDraw();
    },
  });

  const cameras = new CameraList(document.getElementById('cameras'), document.getElementById('no-cameras'), previews);

  const panels = new CameraPanels((index) => cameras.bodyFor(index));

  const composite = new Composite(document.getElementById('composite'), (index) => {
    const canvas = cameras.canvasFor(index);
    return canvas && previews.hasPicture(index) ? { image: canvas, width: canvas.width, height: canvas.height } : null;
  });

  const plan = new PlanForm();
  const take = new TakeControls(plan);
  const layout = new LayoutControls();
  const director = new DirectorPanel();
  const phase = new PhasePanel();
  const live = new LivePanel();
  installShortcuts({ take, layout });

  onState((state) => {
    const present = cameras.update(state.agents);
    previews.keepOnly(present);
    panels.update(state);
    composite.setNames(new Map((state.agents ?? []).map((a) => [a.index, a.camera || a.name])));
    composite.setLayout(state.layout ?? null);
    take.render(state);
    plan.update(state);
    layout.update(state);
    director.update(state);
    phase.update(state);
    live.update(state);
  });
  onNotice(addNoticeLine);

  // The library replaces the studio's panels while shown; a finished take refreshes it.
  const library = new Library(document.getElementById('library'));
  const toggle = document.getElementById('library-toggle');
  const showLibrary = (on) => {
    document.getElementById('library').hidden = !on;
    document.querySelector('main.studio').hidden = on;
    toggle.setAttribute('aria-pressed', String(on));
    toggle.textContent = on ? 'Studio' : 'Library';
    if (on) library.refresh();
  };
  toggle.addEventListener('click', () => showLibrary(toggle.getAttribute('aria-pressed') !== 'true'));
  if (new URLSearchParams(location.search).get('view') === 'library') showLibrary(true);
  let lastFiles = null;
  onState((state) => {
    const files = state.take?.files?.combinedFile ?? null;
    if (files !== lastFiles) {
      lastFiles = files;
      if (!document.getElementById('library').hidden) library.refresh();
    }
  });

  let format = 'none';
  const connection = new Connection({
    format: () => format,
    onFrame: (buffer) => previews.handle(buffer),
    onLink: showLink,
    onPreviewRequest: () => previews.resync(),
  });
  format = await chooseFormat();
  document.body.dataset.previewFormat = format;
  stats.format = format;
  connection.start();
}

main();
