import { useMemo, useState } from 'react';

/** Every IANA zone this browser knows (plus UTC, which `supportedValuesOf` leaves out). */
export function allTimeZones(): string[] {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return zones.includes('UTC') ? zones : ['UTC', ...zones];
}

/** "GMT+1" for a zone now (its offset changes with summer time: this is today's). */
export function zoneOffset(zone: string, at = new Date()): string {
  try {
    const part = new Intl.DateTimeFormat('en-GB', { timeZone: zone, timeZoneName: 'shortOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName');
    return part?.value ?? '';
  } catch {
    return '';
  }
}

const searchable = (s: string) => s.toLowerCase().replace(/_/g, ' ');

/**
 * A searchable choice of display time zone: a filter box over a list of every zone, with "the
 * browser's own" (null) first. `value` null means the browser's.
 */
export function TimeZonePicker({ value, onChange, browserZone, selectProps }: { value: string | null; onChange: (zone: string | null) => void; browserZone: string; selectProps: { id: string; 'aria-invalid'?: true; 'aria-describedby'?: string } }) {
  const [query, setQuery] = useState('');
  const zones = useMemo(() => {
    const now = new Date();
    const list = allTimeZones();
    // a saved zone this browser lists under another name (an alias) stays choosable
    if (value && !list.includes(value)) list.unshift(value);
    return list.map((z) => ({ zone: z, label: `${z.replace(/_/g, ' ')} (${zoneOffset(z, now)})` }));
  }, [value]);
  const q = searchable(query.trim());
  const matches = useMemo(() => (q ? zones.filter((z) => searchable(z.label).includes(q)) : zones), [zones, q]);
  // the chosen zone stays in the list while searching, so the list never loses the selection
  const shown = value && !matches.some((z) => z.zone === value) ? [...zones.filter((z) => z.zone === value), ...matches] : matches;

  return (
    <div className="tz-picker">
      <label className="visually-hidden" htmlFor={`${selectProps.id}-search`}>
        Search time zones
      </label>
      <input
        id={`${selectProps.id}-search`}
        className="input tz-search"
        type="search"
        placeholder="Search time zones: Paris, New York, Tokyo, UTC…"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        autoComplete="off"
      />
      <select {...selectProps} size={8} className="tz-list" value={value ?? ''} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value)}>
        <option value="">The browser’s time zone (now {browserZone.replace(/_/g, ' ')})</option>
        {shown.map((z) => (
          <option key={z.zone} value={z.zone}>
            {z.label}
          </option>
        ))}
      </select>
      <p className="hint" aria-live="polite">
        {q ? `${matches.length} ${matches.length === 1 ? 'zone matches' : 'zones match'} “${query.trim()}”.` : `${zones.length} zones.`}
      </p>
    </div>
  );
}
