// Layout, swap, framing and picture-in-picture buttons. They only send commands: which button
// is lit comes from the server's state, so every viewer shows the same layout and a
// refused change never looks accepted.

import { store } from './store.js';
import { sendCommand } from './api.js';

const NAMES = {
  pip: 'PiP',
  'split-vertical': 'Stacked',
  'split-horizontal': 'Side by side',
  dominance: 'Dominance',
  equal: 'Equal',
  grid: 'Grid',
};
/** The framings the P key steps through outside pip (LayoutSpec.nextPlacement). */
const FRAMINGS = [
  { fit: 'fill', anchor: 'top', text: 'Fill · top' },
  { fit: 'fill', anchor: 'center', text: 'Fill · centre' },
  { fit: 'fill', anchor: 'bottom', text: 'Fill · bottom' },
  { fit: 'fit', anchor: null, text: 'Fit (whole)' },
];
const POSITION_NAMES = {
  'top-left': 'Top left',
  'top-right': 'Top right',
  'bottom-left': 'Bottom left',
  'bottom-right': 'Bottom right',
  center: 'Centre',
};

const $ = (id) => document.getElementById(id);

function button(text, data, title) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'chip';
  b.textContent = text;
  if (title) b.title = title;
  Object.assign(b.dataset, data);
  b.setAttribute('aria-pressed', 'false');
  return b;
}

function next(list, current) {
  if (!Array.isArray(list) || list.length === 0) return null;
  const i = list.indexOf(current);
  return list[(i + 1) % list.length];
}

export class LayoutControls {
  constructor() {
    this.layouts = $('layouts');
    this.positions = $('positions');
    this.framings = $('framings');
    this.framings.replaceChildren(...FRAMINGS.map((f) =>
      button(f.text, { fit: f.fit, anchor: f.anchor ?? '' },
        f.fit === 'fit' ? 'The whole picture, with bars' : `Cover the slot, keeping the ${f.anchor} of a cropped height`)));
    this.sizes = $('sizes');
    this.swap = $('swap');
    this.summary = $('layout-summary');
    this.optionsKey = '';

    this.layouts.addEventListener('click', (event) => {
      const b = event.target.closest('button[data-layout]');
      if (b) this.setLayout(b.dataset.layout);
    });
    this.framings.addEventListener('click', (event) => {
      const b = event.target.closest('button[data-fit]');
      if (b) sendCommand({ command: 'framing', fit: b.dataset.fit, ...(b.dataset.anchor ? { anchor: b.dataset.anchor } : {}) });
    });
    this.positions.addEventListener('click', (event) => {
      const b = event.target.closest('button[data-position]');
      if (b) sendCommand({ command: 'pip', position: b.dataset.position });
    });
    this.sizes.addEventListener('click', (event) => {
      const b = event.target.closest('button[data-size]');
      if (b) sendCommand({ command: 'pip', size: Number(b.dataset.size) });
    });
    this.swap.addEventListener('click', () => this.sendSwap());

    // The combined file's look while recording (before a take it is in the plan form).
    this.look = $('look');
    this.lookFilter = $('look-filter');
    this.lookIntensity = $('look-intensity');
    this.lookIntensityValue = $('look-intensity-value');
    this.filtersKey = '';
    this.lookFilter.addEventListener('change', () => sendCommand({ command: 'filter', filter: this.lookFilter.value }));
    this.lookIntensity.addEventListener('input', () => { this.lookIntensityValue.value = this.lookIntensity.value; });
    this.lookMix = $('look-mix');
    this.lookMix.addEventListener('change', () => sendCommand({ command: 'mix', mix: this.lookMix.value || 'all' }));
    // Sent when the slider is let go: each change is a step in the manifest's filter timeline.
    this.lookIntensity.addEventListener('change', () =>
      sendCommand({ command: 'filter', intensity: Number(this.lookIntensity.value) }));
  }

  setLayout(kind) {
    // By name: the server keeps the options and gives the name its own framing, as l does.
    return sendCommand({ command: 'layout', kind });
  }

  nextLayout() {
    const state = store.state;
    const kind = next(state?.options?.layouts, state?.layout?.kind);
    if (kind) this.setLayout(kind);
  }

  sendSwap() {
    return sendCommand({ command: 'swap' });
  }

  /** P: in pip the next window position, elsewhere the next framing; the server says when neither changes anything. */
  nextPlacement() {
    return sendCommand({ command: 'placement' });
  }

  update(state) {
    const options = state.options ?? {};
    const layout = state.layout ?? null;
    const key = JSON.stringify([options.layouts, options.positions, options.sizes]);
    if (key !== this.optionsKey) {
      this.optionsKey = key;
      this.layouts.replaceChildren(...(options.layouts ?? []).map((name) =>
        button(NAMES[name] ?? name, { layout: name }, `Layout: ${name}`)));
      this.positions.replaceChildren(...(options.positions ?? []).map((name) =>
        button(POSITION_NAMES[name] ?? name, { position: name })));
      this.sizes.replaceChildren(...(options.sizes ?? []).map((size) =>
        button(`${size} %`, { size: String(size) }, `${size} % of the width`)));
    }

    // Changes are taken while recording, and before a take (they set the starting
    // layout); in between (syncing, countdown, finalising…) the rig refuses them.
    const phase = state.take?.phase;
    const open = !state.busy || phase === 'recording';
    const isPip = layout?.kind === 'pip';
    for (const b of this.layouts.children) {
      b.setAttribute('aria-pressed', String(b.dataset.layout === layout?.kind));
      b.disabled = !open;
    }
    for (const b of this.framings.children) {
      const lit = b.dataset.fit === layout?.fit && (b.dataset.fit === 'fit' || b.dataset.anchor === layout?.anchor);
      b.setAttribute('aria-pressed', String(Boolean(lit)));
      b.disabled = !open;
    }
    for (const b of this.positions.children) {
      b.setAttribute('aria-pressed', String(isPip && b.dataset.position === layout?.position));
      b.disabled = !open || !isPip;
    }
    for (const b of this.sizes.children) {
      b.setAttribute('aria-pressed', String(isPip && Number(b.dataset.size) === layout?.size));
      b.disabled = !open || !isPip;
    }
    this.swap.setAttribute('aria-pressed', String(Boolean(layout?.swapped)));
    this.swap.disabled = !open;

    const filters = options.filters ?? [];
    if (JSON.stringify(filters) !== this.filtersKey) {
      this.filtersKey = JSON.stringify(filters);
      this.lookFilter.replaceChildren(...filters.map((name) => new Option(name, name)));
    }
    this.look.hidden = phase !== 'recording';
    if (state.look && document.activeElement !== this.lookFilter) this.lookFilter.value = state.look.filter;
    if (state.look && document.activeElement !== this.lookMix) this.lookMix.value = state.look.mix;
    if (state.look && document.activeElement !== this.lookIntensity) {
      this.lookIntensity.value = String(state.look.intensity);
      this.lookIntensityValue.value = String(state.look.intensity);
    }

    let summary = '';
    if (layout) {
      summary = NAMES[layout.kind] ?? layout.kind ?? '';
      if (isPip) summary += ` · ${POSITION_NAMES[layout.position] ?? layout.position} · ${layout.size} %`;
      else {
        // The words of the framing buttons, so the summary and the lit button agree.
        const framing = FRAMINGS.find((f) => f.fit === layout.fit && (f.fit === 'fit' || f.anchor === layout.anchor));
        summary += ` · ${framing?.text ?? `${layout.fit} ${layout.anchor ?? ''}`.trim()}`;
      }
      if (layout.swapped) summary += ' · swapped';
      if (layout.width && layout.height) summary += ` · ${layout.width} × ${layout.height}`;
    }
    if (this.summary.textContent !== summary) this.summary.textContent = summary;
  }
}
