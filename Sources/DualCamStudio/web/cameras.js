// One tile per camera: its live picture and what the operator needs to trust it (link,
// clock, frame rate, drops, heat, disk, upload, sound). Tiles are keyed by the camera
// index the frames carry and are kept across states, so a canvas never loses its picture
// and nothing flickers when the state changes ten times a second.

import * as format from './format.js';
import { secondsSinceState } from './store.js';

/** A picture older than this, from a camera that should be sending, is called stale. */
const STALE_MS = 3000;
/** A clip is shown for at least this long: a one-sample clip would otherwise flash unseen. */
const CLIP_HOLD_MS = 1500;
/** The meter's floor: quieter than this is shown as silence. */
const METER_FLOOR_DB = -60;

const template = document.getElementById('camera-template');

function meterFraction(db) {
  if (db == null || !Number.isFinite(db)) return 0;
  return Math.min(1, Math.max(0, (db - METER_FLOOR_DB) / -METER_FLOOR_DB));
}

class CameraTile {
  constructor(index) {
    this.index = index;
    this.element = template.content.firstElementChild.cloneNode(true);
    this.element.dataset.camera = String(index);
    const q = (selector) => this.element.querySelector(selector);
    this.canvas = q('canvas.preview');
    this.canvas.dataset.camera = String(index);
    this.media = q('.camera-media');
    this.name = q('.camera-name');
    this.role = q('.camera-role');
    this.connection = q('.connection');
    this.cover = q('.camera-cover');
    this.clock = q('.stat-clock');
    this.fps = q('.stat-fps');
    this.drops = q('.stat-drops');
    this.temp = q('.stat-temp');
    this.disk = q('.stat-disk');
    this.lag = q('.stat-lag');
    this.meter = q('.meter');
    this.meterCover = q('.meter-cover');
    this.meterPeak = q('.meter-peak');
    this.meterText = q('.meter-text');
    this.clip = q('.clip');
    this.clipUntil = 0;
    this.agent = null;
  }

  update(agent) {
    this.agent = agent;
    // The agent's name, and the camera's name in the files only when it says more than
    // the role does ("Host" beside role "host" is the same word twice).
    const extra = agent.camera && ![agent.name, agent.role].some((n) => n && n.toLowerCase() === agent.camera.toLowerCase());
    const label = extra ? `${agent.name} · ${agent.camera}` : agent.name || agent.camera;
    setText(this.name, label || `Camera ${agent.index}`);
    setText(this.role, agent.role || '');
    this.canvas.setAttribute('aria-label', `${label || 'Camera'} live preview`);

    const preview = agent.preview;
    if (preview && preview.width && preview.height) {
      // Before the first picture the box already has the camera's shape.
      this.media.style.aspectRatio = `${preview.width} / ${preview.height}`;
      if (this.canvas.width === 640 && this.canvas.height === 360 && !this.hasPicture) {
        this.canvas.width = preview.width;
        this.canvas.height = preview.height;
      }
    }

    const clock = agent.clock;
    if (clock) {
      const bound = clock.errorBoundMicroseconds;
      setText(this.clock, `${clock.locked ? 'Locked' : 'Unlocked'} ±${format.number(bound)} µs`);
      this.clock.dataset.level = clock.locked ? 'ok' : 'warn';
    } else {
      setText(this.clock, '—');
      this.clock.dataset.level = '';
    }

    const t = agent.telemetry;
    setText(this.fps, t ? `${format.number(t.captureFPS, 1)} fps` + (t.preset ? ` · ${t.preset}` : '') : '—');
    // Even the fastest preset lags: the node is dropping frames, and says what would fit.
    this.fps.dataset.level = t && t.encoderShortfall ? 'bad' : '';
    this.fps.title = t && t.encoderShortfall ? t.encoderShortfall : '';
    setText(this.drops, t ? format.number(t.framesDropped) : '—');
    this.drops.dataset.level = t && t.framesDropped > 0 ? 'warn' : '';
    if (t && t.temperatureC != null) {
      setText(this.temp, t.throttled ? `${format.number(t.temperatureC)} °C · throttling` : `${format.number(t.temperatureC)} °C`);
    } else {
      setText(this.temp, t && t.throttled ? 'Throttling' : '—');
    }
    this.temp.dataset.level = t && t.throttled ? 'bad' : t && t.temperatureC >= 75 ? 'warn' : '';
    if (t && (t.freeDiskBytes != null || t.diskSecondsLeft != null)) {
      const left = t.diskSecondsLeft != null ? ` · ${format.span(t.diskSecondsLeft)}` : '';
      setText(this.disk, `${format.bytes(t.freeDiskBytes)}${left}`);
      this.disk.dataset.level = t.diskSecondsLeft != null && t.diskSecondsLeft < 600 ? 'bad'
        : t.diskSecondsLeft != null && t.diskSecondsLeft < 1800 ? 'warn' : '';
    } else {
      setText(this.disk, '—');
      this.disk.dataset.level = '';
    }
    const lag = agent.uploadLagSeconds;
    setText(this.lag, lag == null ? '—' : `${format.number(lag, 1)} s`);
    this.lag.dataset.level = lag != null && lag > 10 ? 'warn' : '';

    this.updateMeter(t ? t.sound : null);
    this.tick(false);
  }

  updateMeter(sound) {
    if (!sound) {
      this.meter.dataset.live = 'false';
      this.meterCover.style.width = '100%';
      this.meterPeak.style.left = '0%';
      setText(this.meterText, 'No sound');
      this.meter.setAttribute('aria-valuetext', 'no sound');
      this.clip.dataset.on = 'false';
      return;
    }
    this.meter.dataset.live = 'true';
    const rms = meterFraction(sound.rmsDBFS);
    const peak = meterFraction(sound.peakDBFS);
    this.meterCover.style.width = `${(1 - rms) * 100}%`;
    this.meterPeak.style.left = `${peak * 100}%`;
    setText(this.meterText, `${format.dbfs(sound.peakDBFS)} / ${format.dbfs(sound.rmsDBFS)} dBFS`);
    this.meter.setAttribute('aria-valuenow', String(Math.round(Math.max(METER_FLOOR_DB, sound.rmsDBFS ?? METER_FLOOR_DB))));
    this.meter.setAttribute('aria-valuetext', `peak ${format.dbfs(sound.peakDBFS)} dBFS, rms ${format.dbfs(sound.rmsDBFS)} dBFS${sound.clipping ? ', clipping' : ''}`);
    if (sound.clipping) this.clipUntil = performance.now() + CLIP_HOLD_MS;
    this.clip.dataset.on = String(performance.now() < this.clipUntil);
  }

  /** What runs on between states: "lost for N s", a stalled picture, the clip hold. */
  tick(fromTimer = true, pictureAge = this.pictureAge?.() ?? Infinity) {
    const agent = this.agent;
    if (!agent) return;
    const connected = agent.connection || 'connecting';
    // Connected without a camera that can record: the take leaves it out (rig's sourceProblem).
    const state = connected === 'connected' && agent.notReady ? 'notready' : connected;
    this.connection.dataset.state = state;
    this.element.dataset.connection = state;
    const title = state === 'notready' ? agent.notReady : '';
    if (this.connection.title !== title) this.connection.title = title;
    if (state === 'notready') {
      setText(this.connection, 'NOT READY');
    } else if (state === 'lost') {
      const lost = agent.lostForSeconds == null ? null : agent.lostForSeconds + secondsSinceState();
      setText(this.connection, lost == null ? 'Lost' : `Lost for ${format.span(lost)}`);
    } else {
      setText(this.connection, state === 'connected' ? 'Connected' : 'Connecting…');
    }

    let cover = '';
    if (state === 'lost') cover = this.hasPicture ? 'Connection lost: showing the last picture' : 'Connection lost';
    else if (state === 'notready') cover = `NOT READY: ${agent.notReady}`;
    else if (!this.hasPicture) cover = agent.preview ? 'Waiting for the picture…' : 'No preview from this camera';
    else if (pictureAge > STALE_MS && agent.preview) cover = `No picture for ${format.span(pictureAge / 1000)}`;
    this.cover.hidden = cover === '';
    setText(this.cover, cover);
    this.cover.dataset.kind = state === 'lost' || state === 'notready' ? 'lost' : 'wait';
    if (fromTimer && this.clip.dataset.on === 'true' && performance.now() >= this.clipUntil) {
      this.clip.dataset.on = 'false';
    }
  }
}

/** Writes only on change: the state arrives ten times a second and most of it is the same. */
function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

export class CameraList {
  /**
   * @param {HTMLElement} container
   * @param {{hasPicture(i: number): boolean, pictureAge(i: number): number}} pictures
   */
  constructor(container, emptyNote, pictures) {
    this.container = container;
    this.emptyNote = emptyNote;
    this.pictures = pictures;
    this.tiles = new Map();
    // Once a second is enough for "lost for 12 s"; the picture itself is not on a timer.
    setInterval(() => this.tick(), 1000);
  }

  canvasFor(index) {
    return this.tiles.get(index)?.canvas ?? null;
  }

  /** The tile's lower part, where the camera's settings panel goes. */
  bodyFor(index) {
    return this.tiles.get(index)?.element.querySelector('.camera-body') ?? null;
  }

  update(agents) {
    const list = Array.isArray(agents) ? agents : [];
    const seen = new Set();
    let previous = null;
    for (const agent of list) {
      const index = agent.index;
      seen.add(index);
      let tile = this.tiles.get(index);
      if (!tile) {
        tile = new CameraTile(index);
        tile.pictureAge = () => this.pictures.pictureAge(index);
        this.tiles.set(index, tile);
      }
      tile.hasPicture = this.pictures.hasPicture(index);
      // Keep the state's order (host first) without moving tiles that are in place:
      // moving a canvas in the DOM is cheap, but not moving it is cheaper still.
      const expectedPosition = previous ? previous.element.nextElementSibling : this.container.firstElementChild;
      if (expectedPosition !== tile.element) {
        if (previous) previous.element.after(tile.element);
        else this.container.prepend(tile.element);
      }
      tile.update(agent);
      previous = tile;
    }
    for (const [index, tile] of this.tiles) {
      if (!seen.has(index)) {
        tile.element.remove();
        this.tiles.delete(index);
      }
    }
    this.container.dataset.count = String(list.length);
    this.emptyNote.hidden = list.length > 0;
    return seen;
  }

  /** A camera drew a picture: the first one lifts the "waiting" cover at once. */
  pictureArrived(index) {
    const tile = this.tiles.get(index);
    if (tile && (!tile.hasPicture || !tile.cover.hidden)) {
      tile.hasPicture = true;
      tile.tick(false, 0);
    }
  }

  tick() {
    for (const tile of this.tiles.values()) {
      tile.hasPicture = this.pictures.hasPicture(tile.index);
      tile.tick(true);
    }
  }
}
