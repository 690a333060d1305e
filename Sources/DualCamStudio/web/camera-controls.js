// One row per control a camera reports, made from what its driver says it is: a slider
// for a number (its min, max and step), a menu for a menu, a switch for a switch, a
// button for a button. The row shows the value in effect, as the agent answered it (the
// driver rounds and clamps), never the value that was asked for.

/** Past this many steps a slider cannot hit one value: a number field instead. */
const MAX_SLIDER_STEPS = 100_000;

let nextId = 0;

/** What kind of widget a control gets; anything unknown is a number field. */
export function widgetKind(control) {
  switch (control.kind) {
    case 'boolean': return 'switch';
    case 'menu':
    case 'integer-menu': return Array.isArray(control.menu) && control.menu.length > 0 ? 'menu' : 'number';
    case 'button': return 'button';
    case 'integer':
    case 'integer64': {
      const step = Math.max(1, Number(control.step) || 1);
      const steps = (Number(control.maximum) - Number(control.minimum)) / step;
      return Number.isFinite(steps) && steps > 0 && steps <= MAX_SLIDER_STEPS ? 'slider' : 'number';
    }
    default: return 'number';
  }
}

/** A signature of what shapes the row: a control whose shape changes gets a new row. */
export function shapeOf(control) {
  const menu = (control.menu ?? []).map((e) => `${e.index}:${e.name}`).join(',');
  return [control.name, control.kind, control.minimum, control.maximum, control.step, menu].join('|');
}

export class ControlRow {
  /**
   * @param {object} control as GET /api/cameras gives it
   * @param {(value: number|boolean) => void} onSet called with what the user chose
   */
  constructor(control, onSet) {
    this.name = control.name;
    this.shape = shapeOf(control);
    this.kind = widgetKind(control);
    this.busy = false;
    const id = `cp-${++nextId}`;
    const row = document.createElement('div');
    row.className = 'cp-control';
    row.dataset.control = control.name;
    row.dataset.widget = this.kind;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = control.label || control.name;
    label.title = control.name;
    this.hint = document.createElement('span');
    this.hint.className = 'cp-hint';
    label.append(this.hint);
    this.output = document.createElement('output');
    this.output.htmlFor = id;
    this.error = document.createElement('p');
    this.error.className = 'cp-error';
    this.error.dataset.for = control.name;
    this.error.setAttribute('role', 'alert');
    this.error.hidden = true;

    let input;
    switch (this.kind) {
      case 'slider':
        input = document.createElement('input');
        input.type = 'range';
        input.min = String(control.minimum);
        input.max = String(control.maximum);
        input.step = String(Math.max(1, control.step || 1));
        // The number follows the thumb while it moves; the camera is asked once it is let go.
        input.addEventListener('input', () => {
          this.busy = true;
          this.output.textContent = input.value;
        });
        input.addEventListener('change', () => onSet(Number(input.value)));
        // Let go where it started: no change, no answer, so nothing else clears it.
        input.addEventListener('blur', () => { this.busy = false; });
        break;
      case 'number':
        input = document.createElement('input');
        input.type = 'number';
        input.inputMode = 'numeric';
        input.min = String(control.minimum);
        input.max = String(control.maximum);
        input.step = String(Math.max(1, control.step || 1));
        input.addEventListener('focus', () => { this.busy = true; });
        input.addEventListener('change', () => {
          // Sent as typed: the server says what is out of range, with the range.
          const value = Number(input.value);
          if (input.value.trim() !== '' && Number.isInteger(value)) onSet(value);
          else this.showError(`${control.name}: give a whole number, ${control.minimum}…${control.maximum}`);
        });
        input.addEventListener('blur', () => { this.busy = false; });
        break;
      case 'menu':
        input = document.createElement('select');
        for (const entry of control.menu) {
          const option = document.createElement('option');
          option.value = String(entry.index);
          option.textContent = entry.name;
          input.append(option);
        }
        input.addEventListener('change', () => onSet(Number(input.value)));
        break;
      case 'switch':
        input = document.createElement('input');
        input.type = 'checkbox';
        input.setAttribute('role', 'switch');
        input.addEventListener('change', () => onSet(input.checked));
        break;
      default:
        input = document.createElement('button');
        input.type = 'button';
        input.className = 'chip';
        input.textContent = 'Press';
        input.addEventListener('click', () => onSet(1));
    }
    input.id = id;
    input.dataset.control = control.name;
    this.input = input;
    row.append(label, input, this.output, this.error);
    this.element = row;
    this.update(control);
  }

  /** The control as the agent now reports it. A value being chosen is left alone. */
  update(control) {
    const flags = control.flags ?? [];
    const fixed = flags.includes('read-only') || flags.includes('disabled');
    this.input.disabled = fixed;
    const inactive = flags.includes('inactive');
    this.element.dataset.inactive = String(inactive);
    this.hint.textContent = inactive
      ? (control.governedBy ? ` · inactive while ${control.governedBy} is on` : ' · inactive')
      : fixed ? ' · fixed' : '';
    if (this.busy) return;
    const value = control.value;
    switch (this.kind) {
      case 'switch':
        this.input.checked = Boolean(value);
        this.output.textContent = value == null ? '' : value ? 'On' : 'Off';
        break;
      case 'menu':
        if (value != null) this.input.value = String(value);
        this.output.textContent = '';
        break;
      case 'button':
        this.output.textContent = '';
        break;
      default:
        if (value != null) this.input.value = String(value);
        this.output.textContent = value == null ? '—' : String(value);
    }
  }

  showError(text) {
    this.error.textContent = text ?? '';
    this.error.hidden = !text;
  }
}
