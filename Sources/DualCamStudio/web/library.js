// The session library: sessions newest first (thumbnail, date, duration, size, layout,
// status and every warning of the manifest), filtered by date and duration; a session's page with its contact sheet, a
// player per file (the server answers range requests, so the players seek), downloads of
// every file and timeline, export, recompose with live progress, and delete with the
// confirmation the terminal asks, and "Add recording": another recorder's file uploaded
// (the browser's own upload progress) and placed on the take by its sound. Everything
// comes from GET /api/library; actions are POST /api/library/SESSION/ACTION.

import { store } from './store.js';
import { postJSON, getJSON } from './api.js';
import { showError } from './banner.js';

const FORMATS = [['fcpxml', 'FCPXML (Final Cut, Resolve)'], ['xmeml', 'FCP 7 XML (Premiere, Resolve)'],
  ['otio', 'OpenTimelineIO (Resolve, Kdenlive)'], ['edl', 'EDL (combined file)']];

function bytes(n) {
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)} GB`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(n / 1e3))} kB`;
}

function duration(seconds) {
  if (seconds == null) return '–';
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function element(tag, attributes = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

/** The status with the manifest's warnings counted: "complete" alone hid 8 % dropped frames. */
function statusText(s) {
  const n = (s.warnings ?? []).length;
  return n === 0 ? s.status : `${s.status}, ${n} warning${n === 1 ? '' : 's'}`;
}

/** Every warning of the session's manifest, each in full, as `show` prints them. */
function warningList(s, id) {
  const list = s.warnings ?? [];
  if (list.length === 0) return null;
  return element('ul', { class: `warnings ${id}`, 'aria-label': `Warnings of ${s.id}` },
    ...list.map((w) => element('li', { text: String(w) })));
}

function fileURL(id, name, download = false) {
  return `/library/${encodeURIComponent(id)}/${encodeURIComponent(name)}${download ? '?download=1' : ''}`;
}

export class Library {
  constructor(root) {
    this.root = root;
    this.list = root.querySelector('#library-list');
    this.detail = root.querySelector('#library-detail');
    this.filters = root.querySelector('#library-filters');
    this.sessions = [];
    this.recompose = null;
    this.importJob = null;
    /** The upload under way: {id, fraction}; the detail is redrawn while it runs. */
    this.uploading = null;
    this.openID = null;
    this.filters.addEventListener('input', () => this.renderList());
  }

  async refresh() {
    try {
      const listing = await getJSON('/api/library');
      this.sessions = listing.sessions ?? [];
      this.recompose = listing.recompose ?? null;
      this.importJob = listing.importJob ?? null;
    } catch (error) {
      showError(`The library could not be read: ${error.message}`);
      return;
    }
    this.renderList();
    if (this.openID) this.renderDetail();
  }

  matches(s) {
    const f = new FormData(this.filters);
    const from = f.get('from'), to = f.get('to');
    const min = parseFloat(f.get('minMinutes')), max = parseFloat(f.get('maxMinutes'));
    const day = (s.date ?? '').slice(0, 10);
    if (from && (!day || day < from)) return false;
    if (to && (!day || day > to)) return false;
    const minutes = (s.durationSeconds ?? 0) / 60;
    if (!Number.isNaN(min) && minutes < min) return false;
    if (!Number.isNaN(max) && minutes > max) return false;
    return true;
  }

  renderList() {
    const shown = this.sessions.filter((s) => this.matches(s));
    this.list.replaceChildren(...shown.map((s) => element('li', { class: 'session-card', 'data-id': s.id, 'data-state': s.state },
      element('button', { type: 'button', class: 'session-open', onclick: () => this.open(s.id), 'aria-label': `Open session ${s.id}` },
        s.thumbnail ? element('img', { src: fileURL(s.id, s.thumbnail), alt: '', loading: 'lazy', width: 160, height: 90 })
          : element('span', { class: 'no-thumb', text: 'no picture' }),
        element('span', { class: 'session-id', text: s.id }),
        element('span', { class: 'muted', text: s.date ? new Date(s.date).toLocaleString() : 'date unknown' }),
        element('span', { text: `${duration(s.durationSeconds)} · ${bytes(s.sizeBytes)} · ${s.layout ?? '–'}` }),
        element('span', { class: 'session-status', text: statusText(s) })),
      warningList(s, 'card-warnings'))));
    if (shown.length === 0) {
      this.list.replaceChildren(element('li', { class: 'muted', text: this.sessions.length ? 'No session matches the filters.' : 'No sessions yet.' }));
    }
  }

  open(id) {
    this.openID = id;
    this.renderDetail();
    this.detail.scrollIntoView({ block: 'start', behavior: 'smooth' });
  }

  renderDetail() {
    const s = this.sessions.find((x) => x.id === this.openID);
    if (!s) {
      this.detail.replaceChildren(element('p', { class: 'muted', text: 'Choose a session.' }));
      this.openID = null;
      return;
    }
    const parts = [element('h3', { text: s.id }), element('p', { class: 'muted', text: `${statusText(s)}${s.timecode ? ` · starts at ${s.timecode}` : ''}` }),
      warningList(s, 'session-warnings')];
    if (s.state === 'unfinished') {
      parts.push(element('p', { class: 'resume', text: `Unfinished: run "dualcam-coordinator resume ${s.id}" on the coordinator to finish it with what its agents still hold.` }));
    }
    if (s.contactSheet) parts.push(element('img', { class: 'contact-sheet', src: fileURL(s.id, s.contactSheet), alt: `Contact sheet of ${s.id}` }));
    const players = element('div', { class: 'players' });
    for (const f of s.files.filter((x) => ['camera', 'combined', 'render'].includes(x.kind))) {
      players.append(element('figure', { class: 'player', 'data-kind': f.kind },
        element('video', { controls: '', preload: 'metadata', src: fileURL(s.id, f.name), 'data-name': f.name }),
        element('figcaption', { text: f.name })));
    }
    parts.push(players);
    parts.push(element('h4', { text: 'Downloads' }));
    parts.push(element('ul', { class: 'downloads' }, ...s.files.map((f) => element('li', {},
      element('a', { href: fileURL(s.id, f.name, true), download: f.name, 'data-kind': f.kind, text: f.name }),
      element('span', { class: 'muted', text: ` ${bytes(f.bytes)}` })))));
    if (s.state === 'complete' || s.state === 'incomplete') {
      parts.push(element('h4', { text: 'Timelines for an editor' }));
      parts.push(element('div', { class: 'button-row' }, ...FORMATS.map(([format, label]) => element('button', {
        type: 'button', class: 'chip', 'data-format': format, text: label,
        onclick: async () => {
          const answer = await postJSON(`/api/library/${encodeURIComponent(s.id)}/export`, { format });
          // Said every time: written over a timeline already there, the list would not change.
          if (answer) this.exported = { id: s.id, name: answer.name, at: new Date() };
          if (answer) await this.refresh();
        },
      }))));
      const done = this.exported?.id === s.id ? this.exported : null;
      parts.push(element('p', { class: 'muted export-result', role: 'status',
        text: done ? `Written ${done.name} at ${done.at.toLocaleTimeString()}, beside the session's files: download it above.` : '' }));
      parts.push(this.recomposeForm(s));
      parts.push(this.importForm(s));
    }
    parts.push(element('button', {
      type: 'button', class: 'danger', id: 'library-delete', text: 'Delete session…',
      onclick: async () => {
        const files = s.files.length;
        if (!window.confirm(`Delete session ${s.id} and its ${files} files (${bytes(s.sizeBytes)})? This cannot be undone.`)) return;
        const answer = await postJSON(`/api/library/${encodeURIComponent(s.id)}/delete`, { confirm: s.id });
        if (answer) { this.openID = null; await this.refresh(); }
      },
    }));
    this.detail.replaceChildren(...parts);
  }

  recomposeForm(s) {
    const options = store.state?.options ?? {};
    const select = (name, values, blank) => element('select', { name },
      element('option', { value: '', text: blank }), ...(values ?? []).map((v) => element('option', { value: v, text: v })));
    const job = this.recompose && this.recompose.session === s.id ? this.recompose : null;
    const progress = element('progress', { id: 'recompose-progress', max: '1', value: String(job?.fraction ?? 0) });
    const text = element('span', { class: 'muted', id: 'recompose-text', text: !job ? '' : job.error ? job.error
      : job.finished ? `Done: ${job.file}` : `${Math.round(job.fraction * 100)} % (${job.framesPerSecond.toFixed(0)} fps)` });
    const form = element('form', { class: 'plan recompose' },
      element('label', {}, 'Layout ', select('layout', options.layouts, 'as recorded')),
      element('label', {}, 'Filter ', select('filter', options.filters, 'as recorded')),
      element('label', {}, 'Preset ', select('preset', ['ultrafast', 'veryfast', 'fast', 'medium', 'slow'], 'as before')),
      element('button', { type: 'submit', class: 'chip', text: 'Recompose' }));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const f = new FormData(form);
      const body = {};
      for (const k of ['layout', 'filter', 'preset']) if (f.get(k)) body[k] = f.get(k);
      const answer = await postJSON(`/api/library/${encodeURIComponent(s.id)}/recompose`, body);
      if (answer) this.follow();
    });
    if (job && !job.finished) this.follow();
    return element('section', { class: 'recompose-panel' }, element('h4', { text: 'Recompose the combined file' }), form,
      element('div', { class: 'progress-row' }, progress, text));
  }

  /** "Add recording": the imports so far, a file to choose, its upload and import. */
  importForm(s) {
    const job = this.importJob && this.importJob.session === s.id ? this.importJob : null;
    const up = this.uploading && this.uploading.id === s.id ? this.uploading : null;
    const list = element('ul', { class: 'imports', id: 'import-list' }, ...(s.imports ?? []).map((i) => element('li', {
      'data-name': i.name,
      text: `${i.name} (${i.kind}): recorded from ${i.offsetSeconds >= 0 ? '+' : ''}${i.offsetSeconds.toFixed(3)} s of the take, `
        + `drift ${i.driftPpm >= 0 ? '+' : ''}${i.driftPpm.toFixed(1)} ppm, confidence ${Math.round(i.confidence * 100)} %`
        + (i.pieces > 1 ? `, ${i.pieces} pieces (the recorder was paused)` : ''),
    })));
    const input = element('input', { type: 'file', id: 'import-file',
      accept: 'audio/*,video/*,.wav,.bwf,.flac,.mp3,.m4a,.aac,.mp4,.mov' });
    const progress = element('progress', { id: 'import-progress', max: '1',
      value: String(up ? up.fraction : job?.finished ? 1 : 0) });
    const text = element('span', { class: 'muted', id: 'import-text', role: 'status', text: up ? `Uploading ${up.file}: ${Math.round(up.fraction * 100)} %`
      : !job ? '' : job.error ? job.error : job.finished ? job.summary : `${job.file}: ${job.stage}` });
    if (job?.error) text.dataset.state = 'refused';
    const button = element('button', { type: 'button', class: 'chip', id: 'import-button', text: 'Add recording',
      onclick: () => this.upload(s, input.files[0]) });
    if (job && !job.finished) this.follow();
    return element('section', { class: 'import-panel' }, element('h4', { text: 'Other recorders (aligned by their sound)' }),
      list, element('p', { class: 'muted', text: 'A sound recorder\'s or a phone\'s file (WAV, FLAC, MP3, AAC, MP4, MOV): placed on the take by matching its sound, its clock\'s drift taken out.' }),
      element('div', { class: 'button-row' }, input, button), element('div', { class: 'progress-row' }, progress, text));
  }

  /** Sends the file as the request's body, its progress from the browser's upload. */
  upload(s, file) {
    const text = document.getElementById('import-text');
    if (!file) {
      if (text) text.textContent = 'Choose a file first.';
      return;
    }
    const csrf = store.state && store.state.csrf;
    if (!csrf) {
      showError('Not connected to the studio yet, so nothing was uploaded. Wait for the pictures, then try again.');
      return;
    }
    this.uploading = { id: s.id, file: file.name, fraction: 0 };
    this.renderDetail();
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/library/${encodeURIComponent(s.id)}/import?name=${encodeURIComponent(file.name)}`);
    xhr.setRequestHeader('X-DualCam-CSRF', csrf);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.upload.onprogress = (event) => {
      if (!event.lengthComputable || !this.uploading) return;
      this.uploading.fraction = event.loaded / event.total;
      const bar = document.getElementById('import-progress');
      const line = document.getElementById('import-text');
      if (bar) bar.value = this.uploading.fraction;
      if (line) line.textContent = `Uploading ${file.name}: ${Math.round(this.uploading.fraction * 100)} %`;
    };
    const done = async (message) => {
      this.uploading = null;
      if (message) showError(message);
      await this.refresh();
      this.follow();
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) { done(null); return; }
      let message = `${xhr.status} ${xhr.statusText}`;
      try { message = JSON.parse(xhr.responseText).error ?? message; } catch { /* not JSON: the status line */ }
      done(`${file.name} was not imported: ${message}`);
    };
    xhr.onerror = () => done(`${file.name} was not uploaded: the studio server did not answer.`);
    xhr.send(file);
  }

  /** Polls the recompose's progress until it is done, then shows the new file. */
  follow() {
    if (this.following) return;
    this.following = true;
    const tick = async () => {
      await this.refresh();
      if ((this.recompose && !this.recompose.finished) || (this.importJob && !this.importJob.finished)) setTimeout(tick, 500);
      else this.following = false;
    };
    setTimeout(tick, 300);
  }
}
