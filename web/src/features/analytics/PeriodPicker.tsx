import { useId } from 'react';
import { PERIODS, type Period } from './analytics-data.js';
import './analytics.css';

/** 7 / 30 / 90 days as one row of radio buttons (arrow keys move between them). */
export function PeriodPicker({ days, onChange, label = 'Period' }: { days: Period; onChange: (d: Period) => void; label?: string }) {
  const name = useId();
  return (
    <fieldset className="segmented">
      <legend className="visually-hidden">{label}</legend>
      {PERIODS.map((p) => (
        <label key={p} className={p === days ? 'checked' : undefined}>
          <input type="radio" name={name} value={p} checked={p === days} onChange={() => onChange(p)} />
          {p} days
        </label>
      ))}
    </fieldset>
  );
}
