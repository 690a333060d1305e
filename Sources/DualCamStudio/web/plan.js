// The next take's settings: choices from state.options, values from state.plan, sent as
// the start command's fields. A field the operator touched keeps the operator's value;
// the others follow the server's plan (which another viewer or a take may change).

/** For a server that does not list options.sizesWxH. */
const FALLBACK_SIZES = ['640x360', '1280x720', '1920x1080'];

const form = document.getElementById('plan');
const panel = document.getElementById('plan-panel');
const mixOptions = document.getElementById('mix-options');
const field = (name) => form.elements.namedItem(name);

function fill(select, values, label = (v) => String(v)) {
  const current = select.value;
  select.replaceChildren(...values.map((value) => {
    const option = document.createElement('option');
    option.value = String(value);
    option.textContent = label(value);
    return option;
  }));
  if (values.map(String).includes(current)) select.value = current;
}

function sizeLabel(size) {
  return String(size).replace('x', ' × ');
}

export class PlanForm {
  constructor() {
    this.dirty = new Set();
    this.optionsKey = '';
    this.planKey = '';
    form.addEventListener('submit', (event) => event.preventDefault());
    form.addEventListener('input', (event) => {
      if (event.target.name) this.dirty.add(event.target.name);
      this.syncDependents();
    });
  }

  /** The start command's fields, all of them, so the take is exactly what is shown. */
  planFields() {
    const [width, height] = field('size').value.split('x').map(Number);
    const duration = field('durationSeconds').value.trim();
    const fields = {
      width,
      height,
      fps: Number(field('fps').value),
      preset: field('preset').value,
      encoder: field('encoder').value,
      countdown: Math.max(0, Math.round(Number(field('countdown').value) || 0)),
      filter: field('filter').value,
      intensity: Number(field('intensity').value),
      mix: field('mix').value.trim() || 'all',
      durationSeconds: duration === '' ? null : Number(duration),
    };
    // An empty select (no options from the server yet) must not send "" or NaN:
    // leaving the field out means "the plan's value".
    for (const [name, value] of Object.entries(fields)) {
      if (value === '' || (typeof value === 'number' && !Number.isFinite(value))) delete fields[name];
    }
    return fields;
  }

  update(state) {
    const options = state.options ?? {};
    const plan = state.plan ?? {};
    panel.hidden = Boolean(state.busy);

    const planSize = plan.width && plan.height ? `${plan.width}x${plan.height}` : null;
    const sizes = Array.isArray(options.sizesWxH) && options.sizesWxH.length ? [...options.sizesWxH] : [...FALLBACK_SIZES];
    if (planSize && !sizes.includes(planSize)) sizes.push(planSize);
    sizes.sort((a, b) => Number(a.split('x')[0]) - Number(b.split('x')[0]));
    const rates = [...(options.rates ?? [])];
    if (plan.fps && !rates.includes(plan.fps)) rates.push(plan.fps);
    rates.sort((a, b) => a - b);
    const withPlan = (list, value) => (value != null && !list.includes(value) ? [...list, value] : list);
    const agents = (state.agents ?? []).map((a) => a.role || a.name).filter(Boolean);

    const optionsKey = JSON.stringify([sizes, rates, options.encoders, options.presets, options.filters, plan.encoder, plan.preset, plan.filter, agents]);
    if (optionsKey !== this.optionsKey) {
      this.optionsKey = optionsKey;
      fill(field('size'), sizes, sizeLabel);
      fill(field('fps'), rates, (r) => `${r} fps`);
      fill(field('encoder'), withPlan(options.encoders ?? [], plan.encoder));
      fill(field('preset'), withPlan(options.presets ?? [], plan.preset));
      fill(field('filter'), withPlan(options.filters ?? [], plan.filter));
      const mixes = ['all', ...new Set(agents)];
      if (agents.length >= 2) mixes.push(agents.map((a, i) => `${a}=${i === 0 ? 0 : -3}`).join(','));
      mixOptions.replaceChildren(...mixes.map((m) => Object.assign(document.createElement('option'), { value: m })));
      this.planKey = ''; // new choices: put the plan's values back in
    }

    const planKey = JSON.stringify(plan);
    if (planKey === this.planKey) return;
    this.planKey = planKey;
    const values = {
      size: planSize,
      fps: plan.fps,
      encoder: plan.encoder,
      preset: plan.preset,
      countdown: plan.countdown,
      durationSeconds: plan.durationSeconds ?? '',
      filter: plan.filter,
      intensity: plan.intensity,
      mix: plan.mix,
    };
    for (const [name, value] of Object.entries(values)) {
      if (this.dirty.has(name) || value == null) continue;
      field(name).value = String(value);
    }
    this.syncDependents();
  }

  syncDependents() {
    const intensity = field('intensity');
    form.elements.namedItem('intensityValue').value = intensity.value;
    // Intensity means nothing without a filter; greyed out rather than hidden, so the
    // form does not jump when a filter is picked.
    intensity.disabled = field('filter').value === 'none';
    intensity.closest('label').dataset.disabled = String(intensity.disabled);
  }
}
