// The take: Record and Stop, the phase, the running time, the countdown, finalising
// progress and, at the end, the files or the reason it failed.

import * as format from './format.js';
import { store, isBusy, secondsSinceState } from './store.js';
import { sendCommand } from './api.js';

const PHASES = {
  idle: { label: 'Idle', text: 'Ready. Choose the settings, then press Record.' },
  syncing: { label: 'Syncing', text: 'Waiting for every camera’s clock to lock…' },
  preparing: { label: 'Preparing', text: 'The cameras are getting ready…' },
  countdown: { label: 'Countdown', text: 'Recording starts in a moment.' },
  recording: { label: 'Recording', text: 'Recording. Layout changes go into the combined file from the next frame.' },
  stopping: { label: 'Stopping', text: 'Stopping: the cameras are sending what is left…' },
  finalising: { label: 'Finalising', text: 'Finalising: writing the combined file…' },
  done: { label: 'Done', text: 'Done. The files are ready.' },
  failed: { label: 'Failed', text: 'The take failed.' },
  cancelled: { label: 'Cancelled', text: 'The take was cancelled.' },
};
/** A second Enter within this long confirms; the first only arms. */
const CONFIRM_MS = 3000;

const $ = (id) => document.getElementById(id);

function setText(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

/**
 * Fills an element with text that may break after "_" and "/": session file names
 * (DualCam_Combined_20261125_155040.mp4) and folders are long words, and breaking them
 * anywhere looks broken. The text content stays exactly the name.
 */
function setBreakableText(element, text) {
  // No look-behind in the pattern: Safari before 16.4 (older tablets) rejects the module.
  const parts = text.replace(/[_/]/g, '$&\n').split('\n');
  element.replaceChildren(...parts.flatMap((part, i) =>
    i < parts.length - 1 ? [part, document.createElement('wbr')] : [part]));
}

export class TakeControls {
  /** @param {{planFields: () => object}} plan the form that supplies the start's fields */
  constructor(plan) {
    this.plan = plan;
    this.record = $('record');
    this.recordLabel = this.record.querySelector('.record-label');
    this.stop = $('stop');
    this.stopLabel = this.stop.querySelector('.stop-label');
    this.phasePill = $('phase');
    this.timer = $('timer');
    this.countdown = $('countdown');
    this.session = $('session');
    this.text = $('take-text');
    this.progressRow = $('finalising-row');
    this.progress = $('finalising');
    this.progressText = $('finalising-text');
    this.reason = $('reason');
    this.warnings = $('warnings');
    this.preflight = $('preflight');
    this.files = $('files');
    this.folder = $('folder');
    this.fileList = $('file-list');

    this.armed = null; // {action: 'start' | 'stop', timer}
    this.sending = false;
    this.shownElapsed = 0;
    this.shownSession = null;
    this.filesKey = '';
    this.warningsKey = '';
    this.preflightKey = '';
    this.progressSession = null;
    this.progressFloor = 0;

    this.record.addEventListener('click', () => this.start());
    this.stop.addEventListener('click', () => this.sendStop());
    // Enter or Space on a focused Record or Stop would click it. Focus stays on Record
    // after a take, so one stray key would start the next one: from the keyboard these
    // buttons behave like the global Enter, arm first and confirm second. A pointer
    // click (or a script's click()) is deliberate and acts at once.
    for (const button of [this.record, this.stop]) {
      button.addEventListener('keydown', (event) => {
        if ((event.key !== 'Enter' && event.key !== ' ') || event.ctrlKey || event.metaKey || event.altKey) return;
        event.preventDefault();
        if (!event.repeat) this.pressPrimary();
      });
      // Space clicks on key-up; the press was already handled on key-down.
      button.addEventListener('keyup', (event) => {
        if (event.key === ' ') event.preventDefault();
      });
    }
    // The clock runs between states (at most ten a second, fewer when quiet), so it
    // ticks here; 100 ms keeps the seconds turning over on time.
    setInterval(() => this.tick(), 100);
  }

  phase(state = store.state) {
    return state?.take?.phase ?? 'idle';
  }

  /** A take that streams without recording: Record keeps it instead of starting one. */
  liveOnly(state = store.state) {
    return Boolean(state?.take?.liveOnly && !state.take.isOver);
  }

  /** A take under way that records: Stop ends it, Record waits (a take only live does not count). */
  recording(state = store.state) {
    return isBusy(state) && !this.liveOnly(state);
  }

  async start() {
    this.disarm();
    if (this.sending || this.recording()) return;
    if (!this.confirmLeftOut()) return;
    this.sending = true;
    this.record.setAttribute('aria-busy', 'true');
    try {
      await sendCommand({ command: 'start', ...this.plan.planFields() });
    } finally {
      this.sending = false;
      this.record.removeAttribute('aria-busy');
    }
  }

  /**
   * A node that is NOT READY (connected, its camera missing) or not here (lost, not yet
   * connected) is left out of the take by the rig: recording one camera where two were
   * meant is found too late, so the page asks first, naming each node and why. True to go on.
   */
  confirmLeftOut(state = store.state) {
    const why = (a) => {
      if (a.connection === 'connected') return a.notReady ? `NOT READY: ${a.notReady}` : null;
      return a.connection === 'lost' ? 'NOT HERE: its connection was lost, and the rig is reconnecting'
        : 'NOT HERE: it has not answered yet; check that dualcam-agent runs there';
    };
    const left = (state?.agents ?? []).filter((a) => why(a) !== null);
    if (left.length === 0) return true;
    const lines = left.map((a) => `${a.name} [${a.role}] is ${why(a)}.`);
    const names = left.map((a) => a.name);
    const them = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    return window.confirm(`${lines.join('\n')}\n\nRecord without ${them}?`);
  }

  sendStop() {
    this.disarm();
    // The stream is the take's programme: it cannot outlive the take, so say so first.
    const onAir = (store.state?.take?.liveOut ?? []).some((s) => s.state !== 'off');
    if (onAir && !this.liveOnly() && !window.confirm('Stop ends the live stream too: the stream is this take\'s '
      + 'programme. Stop recording and streaming? (Stop recording, stay live keeps the stream; End live alone keeps '
      + 'recording.)')) return undefined;
    return sendCommand({ command: 'stop' });
  }

  /**
   * Enter (twice): the keyboard way to start or stop. Starting or ending a take by
   * accident costs a recording, and a key is easily hit by mistake (a tablet's keyboard
   * cover, a cat, focus left on a button), so the first press only arms and says what
   * a second press within three seconds will do. Two presses beat press-and-hold: key
   * repeat makes holding unreliable, and it works the same with a screen reader.
   */
  pressPrimary() {
    const action = this.recording() ? 'stop' : 'start';
    if (this.armed && this.armed.action === action) {
      if (action === 'start') this.start();
      else this.sendStop();
      return;
    }
    this.disarm();
    this.armed = { action, timer: setTimeout(() => this.disarm(), CONFIRM_MS) };
    this.render();
  }

  disarm() {
    if (!this.armed) return;
    clearTimeout(this.armed.timer);
    this.armed = null;
    this.render();
  }

  render(state = store.state) {
    const take = state?.take ?? null;
    const phase = this.phase(state);
    const info = PHASES[phase] ?? { label: format.capitalised(phase), text: '' };
    const liveOnly = this.liveOnly(state);
    const busy = this.recording(state);
    // A take that ended is no longer armed for: the press meant the old situation.
    if (this.armed && (this.armed.action === 'stop') !== busy) {
      clearTimeout(this.armed.timer);
      this.armed = null;
    }

    document.body.dataset.phase = phase;
    document.body.dataset.busy = String(isBusy(state));
    this.record.dataset.state = phase;
    this.record.disabled = busy;
    const armedStart = this.armed?.action === 'start';
    this.record.dataset.armed = String(armedStart);
    setText(this.recordLabel, armedStart ? 'Press Enter again to record'
      : busy ? info.label : liveOnly ? 'Record (keep it from Go live)' : 'Record');
    this.stop.disabled = !busy;
    const armedStop = this.armed?.action === 'stop';
    this.stop.dataset.armed = String(armedStop);
    setText(this.stopLabel, armedStop ? 'Press Enter again to stop' : 'Stop');

    this.phasePill.dataset.phase = phase;
    setText(this.phasePill, liveOnly ? 'Live, not recording' : info.label);
    setText(this.session, take?.sessionID ?? '');

    let text = info.text;
    const warned = (take?.warnings ?? []).length;
    if (phase === 'done' && warned > 0) {
      // The files exist but are not what was asked for: say so where the eye lands.
      text = `Done, with ${warned} warning${warned === 1 ? '' : 's'} (below). The files are ready.`;
    }
    if (phase === 'countdown' && take?.countdownSeconds != null) {
      text = `Recording starts in ${Math.max(1, Math.ceil(take.countdownSeconds))} s.`;
    }
    if (liveOnly) {
      text = 'Live without recording: nothing is kept unless you press Record (the files then begin when live began). End live ends it.';
    } else if (phase === 'done' && take?.liveOnly) {
      text = 'Live ended. Nothing was kept: the take was live without recording.';
    }
    setText(this.text, text);
    this.renderProgress(phase, take);

    const showReason = Boolean(take?.reason) && (phase === 'failed' || phase === 'cancelled' || take?.isOver);
    this.reason.hidden = !showReason;
    setText(this.reason, showReason ? take.reason : '');
    this.renderWarnings(take?.warnings);
    this.renderPreflight(take?.preflight);
    this.renderFiles(take?.files ?? null);
    this.tick();
  }

  renderProgress(phase, take) {
    const finalising = take?.finalising;
    const show = phase === 'stopping' || phase === 'finalising';
    this.progressRow.hidden = !show;
    if (!show) return;
    if (finalising && finalising.total > 0) {
      // The total grows as the last segments are counted in, so done/total can shrink
      // (a bar at 100 % went back to 91 %): the bar never goes back within a take.
      if (this.progressSession !== take.sessionID) {
        this.progressSession = take.sessionID;
        this.progressFloor = 0;
      }
      this.progressFloor = Math.max(this.progressFloor, Math.min(finalising.done / finalising.total, 1));
      this.progress.max = 1;
      this.progress.value = this.progressFloor;
      setText(this.progressText, `${finalising.done} of ${finalising.total} segments`);
    } else {
      // No figures yet: an indeterminate bar says "working" without a made-up number.
      this.progress.removeAttribute('value');
      setText(this.progressText, phase === 'stopping' ? 'Collecting the last frames…' : 'Starting…');
    }
  }

  renderWarnings(warnings) {
    const list = Array.isArray(warnings) ? warnings : [];
    const key = JSON.stringify(list);
    if (key === this.warningsKey) return;
    this.warningsKey = key;
    this.warnings.replaceChildren(...list.map((warning) => {
      const item = document.createElement('li');
      item.textContent = String(warning);
      return item;
    }));
    this.warnings.hidden = list.length === 0;
  }

  // What each node records, as the rig said it when the countdown began; what is missing
  // (a test pattern for a camera, no sound, a node not there) is written in capitals by the
  // rig and marked here too.
  renderPreflight(lines) {
    const list = Array.isArray(lines) ? lines.map(String) : [];
    const key = JSON.stringify(list);
    if (key === this.preflightKey) return;
    this.preflightKey = key;
    this.preflight.replaceChildren(...list.map((line) => {
      const item = document.createElement('li');
      item.textContent = line.trim();
      if (/TEST PATTERN|NO SOUND|NOT HERE|NOT READY/.test(line)) item.classList.add('alert');
      return item;
    }));
    this.preflight.hidden = list.length === 0;
  }

  renderFiles(files) {
    const key = JSON.stringify(files);
    if (key === this.filesKey) return;
    this.filesKey = key;
    this.files.hidden = !files;
    if (!files) {
      this.fileList.replaceChildren();
      return;
    }
    setBreakableText(this.folder, files.folder ? `Saved in ${files.folder}` : '');
    const items = [];
    const link = (file, kind, className, caption) => {
      if (!file || !file.url) return;
      const item = document.createElement('li');
      const a = document.createElement('a');
      a.className = className;
      a.dataset.kind = kind;
      a.href = file.url;
      a.target = '_blank';
      a.rel = 'noopener';
      setBreakableText(a, file.name || file.url);
      const note = document.createElement('span');
      note.className = 'file-kind';
      note.textContent = caption;
      item.append(a, note);
      items.push(item);
    };
    link(files.combined, 'combined', 'file', 'combined');
    for (const camera of files.cameras ?? []) link(camera, 'camera', 'file', 'camera');
    // Sound files are extras beside the three kinds the page promises (a.file).
    for (const sound of files.sound ?? []) link(sound, 'sound', 'sound-file', 'sound');
    link(files.manifest, 'manifest', 'file', 'manifest');
    this.fileList.replaceChildren(...items);
  }

  /** The running time and the countdown, run on locally from the last state. */
  tick() {
    const take = store.state?.take;
    const phase = take?.phase ?? 'idle';
    if (!take) {
      this.shownElapsed = 0;
      this.shownSession = null;
    } else {
      if (take.sessionID !== this.shownSession) {
        this.shownSession = take.sessionID;
        this.shownElapsed = 0;
      }
      const base = Number(take.elapsedSeconds) || 0;
      const now = phase === 'recording' ? base + secondsSinceState() : base;
      // Never backwards: a state that left the server a moment ago may say slightly
      // less than the local clock has already shown.
      this.shownElapsed = Math.max(this.shownElapsed, now);
    }
    setText(this.timer, format.clock(this.shownElapsed));
    this.timer.dataset.running = String(phase === 'recording');

    if (phase === 'countdown' && take?.countdownSeconds != null) {
      const left = Math.max(1, Math.ceil(take.countdownSeconds - secondsSinceState()));
      setText(this.countdown, String(left));
      this.countdown.hidden = false;
    } else if (!this.countdown.hidden) {
      this.countdown.hidden = true;
      this.countdown.textContent = '';
    }
  }
}
