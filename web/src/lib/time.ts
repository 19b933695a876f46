/** Times are stored and sent as UTC instants; they are shown in the person's time zone. */

export function formatDateTime(iso: string, timeZone: string, opts: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  return new Intl.DateTimeFormat(undefined, { ...opts, timeZone }).format(new Date(iso));
}

/** The UTC form shown on hover, so the truth is never hidden behind the display zone. */
export function utcTitle(iso: string): string {
  return `${new Date(iso).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
}

/** The wall-clock parts of an instant in a zone (for date/time inputs). */
export function partsInZone(iso: string, timeZone: string): { date: string; time: string } {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const p = Object.fromEntries(f.formatToParts(new Date(iso)).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, time: `${p.hour}:${p.minute}` };
}

/** The UTC instant of a wall-clock date and time in a zone (inputs → API). */
export function instantFromZone(date: string, time: string, timeZone: string): string {
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi] = time.split(':').map(Number) as [number, number];
  const guess = Date.UTC(y, mo - 1, d, h, mi);
  // the zone's offset at that moment, found by formatting the guess in the zone
  const offset = (at: number) => {
    const p = partsInZone(new Date(at).toISOString(), timeZone);
    const [py, pmo, pd] = p.date.split('-').map(Number) as [number, number, number];
    const [ph, pmi] = p.time.split(':').map(Number) as [number, number];
    return Date.UTC(py, pmo - 1, pd, ph, pmi) - at;
  };
  const first = guess - offset(guess);
  return new Date(guess - offset(first)).toISOString();
}
