// A panel per camera (docs/STUDIO.md, "Camera panel"): digital zoom (1×, 2×, 4× and a
// ramp time), the controls the camera really reports (camera-controls.js), locks for
// exposure, focus and white balance, "lock during takes" and "match from". Each change is
// a POST /api/cameras/N; the panel then shows what the agent answered: the values in
// effect, and each refusal next to the control it concerns, in the agent's words. None of
// it touches a take: the recording goes on whatever a camera refuses.

import { ControlRow, shapeOf } from './camera-controls.js';

const ZOOMS = [1, 2, 4];
const LOCKS = [
  { name: 'exposure', text: 'Exposure' },
  { name: 'focus', text: 'Focus' },
  { name: 'white-balance', text: 'White balance' },
];

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text != null) e.textContent = text;
  return e;
}

function errorLine(key) {
  const p = element('p', 'cp-error');
  p.dataset.for = key;
  p.setAttribute('role', 'alert');
  p.hidden = true;
  return p;
}

function switchLabel(text, data) {
  const label = element('label', 'cp-switch');
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.setAttribute('role', 'switch');
  Object.assign(input.dataset, data);
  label.append(input, document.createTextNode(` ${text}`));
  return { label, input };
}

/** Where an answer's outcome is shown: its control's row, the zoom row, the locks. */
function outcomeKey(name) {
  if (name === 'zoom') return 'zoom';
  if (name.startsWith('lock ') || name.startsWith('unlock ')) return 'locks';
  return name;
}

export class CameraPanel {
  /**
   * @param {number} index the camera's index in the state
   * @param {(body: object) => Promise<{ok: boolean, body?: object, error?: string}>} send
   *        POSTs a change for this camera (api.js post)
   */
  constructor(index, send) {
    this.index = index;
    this.send = send;
    this.data = null;
    this.rows = new Map();
    this.element = element('section', 'camera-panel');
    this.element.dataset.camera = String(index);
    this.element.setAttribute('aria-label', 'Camera settings');
    this.errors = new Map();

    const zoom = element('div', 'cp-zoom');
    const zoomHead = element('div', 'cp-zoom-head');
    zoomHead.append(element('span', 'cp-title', 'Zoom'));
    this.zoomNow = element('output', 'cp-zoom-now');
    zoomHead.append(this.zoomNow);
    const buttons = element('div', 'cp-zoom-buttons');
    buttons.setAttribute('role', 'group');
    buttons.setAttribute('aria-label', 'Digital zoom');
    this.zoomButtons = ZOOMS.map((factor) => {
      const b = element('button', 'chip', `${factor}×`);
      b.type = 'button';
      b.dataset.zoom = String(factor);
      b.setAttribute('aria-pressed', 'false');
      b.addEventListener('click', () => this.zoomTo(factor));
      return b;
    });
    const ramp = element('label', 'cp-ramp', 'Ramp (s) ');
    this.ramp = document.createElement('input');
    this.ramp.type = 'number';
    this.ramp.name = 'ramp';
    this.ramp.min = '0';
    this.ramp.max = '60';
    this.ramp.step = '0.1';
    this.ramp.value = '0.5';
    this.ramp.inputMode = 'decimal';
    ramp.append(this.ramp);
    buttons.append(...this.zoomButtons, ramp);
    zoom.append(zoomHead, buttons, this.errorFor('zoom'));

    this.note = element('p', 'cp-note muted');
    this.note.hidden = true;

    this.more = element('details', 'cp-more');
    this.summary = element('summary', null, 'Camera controls');
    this.controls = element('div', 'cp-controls');

    const locks = element('fieldset', 'cp-locks');
    locks.append(element('legend', null, 'Lock at the current value'));
    this.lockInputs = LOCKS.map(({ name, text }) => {
      const { label, input } = switchLabel(text, { lock: name });
      input.addEventListener('change', () => this.change(input.checked ? { lock: [name] } : { unlock: [name] }, 'locks'));
      locks.append(label);
      return input;
    });
    const during = switchLabel('Lock all three during takes', { during: 'true' });
    this.duringInput = during.input;
    this.duringInput.addEventListener('change', () => this.change({ lockDuringTakes: this.duringInput.checked }, 'locks'));
    locks.append(during.label, this.errorFor('locks'));

    this.match = element('div', 'cp-match');
    // Shown once the state names another camera to match from (setPeers).
    this.match.hidden = true;
    const matchLabel = element('label', null, 'Match from ');
    this.matchFrom = document.createElement('select');
    this.matchFrom.name = 'match-from';
    matchLabel.append(this.matchFrom);
    this.matchButton = element('button', 'chip', 'Match');
    this.matchButton.type = 'button';
    this.matchButton.title = "Copy that camera's exposure time, gain and white balance to this one";
    this.matchButton.addEventListener('click', () => {
      if (this.matchFrom.value !== '') this.change({ matchFrom: Number(this.matchFrom.value) }, 'match');
    });
    this.match.append(matchLabel, this.matchButton, this.errorFor('match'));

    const refresh = element('button', 'chip cp-refresh', 'Read again');
    refresh.type = 'button';
    refresh.title = 'Ask the camera for its values now (automatic modes change them by themselves)';
    refresh.addEventListener('click', () => this.change({}, '*'));

    this.more.append(this.summary, this.controls, locks, this.match, refresh);
    this.element.append(zoom, this.errorFor('*'), this.note, this.more);
  }

  errorFor(key) {
    const line = errorLine(key);
    this.errors.set(key, line);
    return line;
  }

  /** Shows `text` (or clears it) where `key` belongs: a control's row, zoom, locks, match, or the panel. */
  showError(key, text) {
    const row = this.rows.get(key);
    if (row) {
      row.showError(text);
      return;
    }
    const line = this.errors.get(key) ?? this.errors.get('*');
    line.textContent = text ?? '';
    line.hidden = !text;
  }

  /** The other cameras this one can match, as the state lists them. */
  setPeers(agents) {
    const peers = agents.filter((a) => a.index !== this.index && a.connection === 'connected');
    const chosen = this.matchFrom.value;
    const options = peers.map((a) => {
      const option = document.createElement('option');
      option.value = String(a.index);
      option.textContent = a.role ? `${a.name} (${a.role})` : a.name;
      return option;
    });
    const same = options.length === this.matchFrom.options.length
      && options.every((o, i) => o.value === this.matchFrom.options[i].value && o.textContent === this.matchFrom.options[i].textContent);
    if (!same) {
      this.matchFrom.replaceChildren(...options);
      if (peers.some((a) => String(a.index) === chosen)) this.matchFrom.value = chosen;
    }
    this.match.hidden = peers.length === 0;
  }

  zoomTo(factor) {
    const ramp = this.ramp.value.trim() === '' ? 0 : Number(this.ramp.value);
    // Sent as typed: the server refuses a ramp out of range and says the range.
    this.change({ zoom: { factor, rampSeconds: ramp } }, 'zoom');
  }

  /** Sends a change; shows the answer, or the refusal where `key` says. */
  async change(body, key, row = null) {
    this.element.dataset.pending = 'true';
    let answer;
    try {
      answer = await this.send(body);
    } catch (error) {
      // An answer that is not JSON (a proxy's page): said here, the page goes on.
      answer = { ok: false, error: `the studio's answer could not be read (${error.message})` };
    } finally {
      this.element.dataset.pending = 'false';
      if (row) row.busy = false;
    }
    if (!answer.ok) {
      this.showError(key, answer.error);
      // Back to what the camera has: a refused value must not look applied.
      if (this.data) this.apply(this.data);
      return;
    }
    const mine = (answer.body?.cameras ?? []).find((c) => c.index === this.index);
    if (!mine) {
      this.showError(key, 'the studio answered without this camera; read it again');
      return;
    }
    this.showError(key, null);
    this.apply(mine);
    for (const outcome of mine.outcomes ?? []) this.showError(outcomeKey(outcome.name), outcome.problem ?? null);
    if (mine.problem) this.showError('*', mine.problem);
    if (body.matchFrom != null) {
      const unmatched = mine.unmatched ?? [];
      this.showError('match', unmatched.length ? `Not matched: ${unmatched.join('; ')}` : null);
    }
  }

  /** The camera as the server now has it (an answer, a listing, another viewer's change). */
  apply(camera) {
    this.data = camera;
    this.element.dataset.name = camera.name ?? '';
    const zoom = camera.zoom;
    const factor = zoom ? Number(zoom.factor) : null;
    this.element.dataset.zoom = factor == null ? '' : String(factor);
    this.zoomNow.textContent = factor == null ? '' : `${factor.toFixed(factor % 1 ? 2 : 1)}×`;
    for (const b of this.zoomButtons) {
      b.setAttribute('aria-pressed', String(factor != null && Math.abs(factor - Number(b.dataset.zoom)) < 0.005));
    }
    const note = [camera.camera, camera.note].filter(Boolean).join(': ');
    this.note.textContent = note;
    this.note.hidden = note === '';
    // A camera the rig could not ask has only its problem.
    if (camera.problem && !camera.camera) this.showError('*', camera.problem);

    this.renderControls(camera.controls ?? []);
    const count = (camera.controls ?? []).length;
    this.summary.textContent = count ? `Camera controls (${count})` : 'Camera controls (none: locks and match only)';

    const locks = new Map((camera.locks ?? []).map((l) => [l.name, l]));
    for (const input of this.lockInputs) {
      const lock = locks.get(input.dataset.lock);
      input.checked = Boolean(lock?.locked);
      input.disabled = !lock || (!lock.locked && Boolean(lock.unavailable));
      input.parentElement.title = lock?.unavailable ?? '';
    }
    const lockable = [...locks.values()].some((l) => l.locked || !l.unavailable);
    this.duringInput.checked = Boolean(camera.lockDuringTakes);
    this.duringInput.disabled = !lockable && !camera.lockDuringTakes;
    this.duringInput.parentElement.title = lockable ? '' : 'this camera has nothing to lock';
  }

  renderControls(controls) {
    const shapes = controls.map(shapeOf).join('\n');
    if (shapes !== this.shapes) {
      // A camera replugged or replaced: rows made anew from what it reports.
      this.shapes = shapes;
      this.rows = new Map();
      this.controls.replaceChildren(...controls.map((control) => {
        const row = new ControlRow(control, (value) => {
          this.change({ set: [{ name: control.name, value }] }, control.name, row);
        });
        this.rows.set(control.name, row);
        return row.element;
      }));
      return;
    }
    for (const control of controls) this.rows.get(control.name)?.update(control);
  }
}
