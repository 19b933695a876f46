/** Sizes and durations of media items, as people read them. */

const UNITS = ['B', 'kB', 'MB', 'GB'] as const;

/** 287 → "287 B", 23593 → "23.6 kB" (decimal units, as file managers show them). */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  const number = new Intl.NumberFormat(undefined, { maximumFractionDigits: unit === 0 || value >= 100 ? 0 : 1 }).format(value);
  return `${number} ${UNITS[unit]}`;
}

/** 75.4 → "1:15"; 3725 → "1:02:05". */
export function formatSeconds(seconds: number): string {
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}
