// Camera phase in the combined picture: how far apart in time the frames shown together
// were captured, per pair of cameras. It is camera timing, not clock error (the clock's
// ± figures are on each camera's card), and it is said loudly past a quarter frame.

const $ = (id) => document.getElementById(id);
const ms = (ns) => (ns / 1e6).toFixed(1);

export class PhasePanel {
  constructor() {
    this.row = $('frame-phase');
    this.text = $('frame-phase-text');
  }

  update(state) {
    const take = state.take;
    const phase = take ? take.framePhase : null;
    const pairs = phase ? phase.pairs ?? [] : [];
    this.row.hidden = pairs.length === 0;
    if (pairs.length === 0) return;
    const names = new Map((state.agents ?? []).map((a) => [a.index, a.camera || a.name]));
    const name = (stream) => names.get((take.phaseCameras ?? [])[stream]) ?? `camera ${stream + 1}`;
    const worst = pairs.reduce((a, b) => (b.apart.p95Nanoseconds > a.apart.p95Nanoseconds ? b : a));
    const outOfStep = worst.apart.p95Nanoseconds * 4 > phase.periodNanoseconds;
    const text = `Phase ${worst.streams.map(name).join(' – ')}: ${ms(worst.apart.p95Nanoseconds)} ms apart`
      + ` (median ${ms(worst.apart.medianNanoseconds)}, max ${ms(worst.apart.maxNanoseconds)})`
      + (outOfStep ? ` · more than a quarter frame (${ms(phase.periodNanoseconds / 4)} ms): free-running cameras; genlocked or steered sources line up` : '');
    if (this.text.textContent !== text) this.text.textContent = text;
    this.row.dataset.outOfStep = String(outOfStep);
    this.row.title = 'Camera timing, not clock error: how far apart the frames shown together were captured (95th percentile)';
  }
}
