// Text for numbers: one place, so every panel says a duration or a size the same way.

const pad2 = (n) => String(n).padStart(2, '0');

/** A take's running time: MM:SS, or HH:MM:SS from an hour on. */
export function clock(seconds) {
  const total = Math.max(0, Math.floor(seconds || 0));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${pad2(h)}:${pad2(m)}:${pad2(s)}` : `${pad2(m)}:${pad2(s)}`;
}

/** How long something lasts, coarsely: "3 h 20 min", "45 min", "50 s". */
export function span(seconds) {
  if (seconds == null || !Number.isFinite(seconds)) return '—';
  const total = Math.max(0, Math.round(seconds));
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** Decimal units, like the disk makers and `df -H`. */
export function bytes(n) {
  if (n == null || !Number.isFinite(n)) return '—';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}

export function number(n, digits = 0) {
  return n == null || !Number.isFinite(n) ? '—' : n.toFixed(digits);
}

/** dBFS with a real minus sign; silence comes as -inf or a very low number. */
export function dbfs(n) {
  if (n == null || Number.isNaN(n)) return '—';
  if (!Number.isFinite(n) || n <= -120) return '−∞';
  return n.toFixed(0).replace('-', '−');
}

export function capitalised(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : '';
}
