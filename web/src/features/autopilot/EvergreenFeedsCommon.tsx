import { useId, type ReactNode } from 'react';
import type { Integration } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { ErrorNotice, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import './EvergreenFeeds.css';

/** Pieces the evergreen and feeds tabs share (times in the person's zone, the channel checklist). */

/** An instant in the person's zone, the UTC instant on hover. */
export function When({ iso, empty = '—', opts }: { iso: string | null | undefined; empty?: string; opts?: Intl.DateTimeFormatOptions }) {
  const zone = useTimeZone();
  if (!iso) return <span className="ap-muted">{empty}</span>;
  return (
    <time dateTime={iso} title={utcTitle(iso)}>
      {formatDateTime(iso, zone, opts)}
    </time>
  );
}

/** Toggles `item` in a list (checkbox groups). */
export function toggle<T>(list: T[], item: T, on: boolean): T[] {
  return on ? (list.includes(item) ? list : [...list, item]) : list.filter((x) => x !== item);
}

/** A channel's name, or what is left of it once removed. */
export function channelLabel(names: Map<string, Integration>, id: string): string {
  const c = names.get(id);
  return c ? `${c.name} (${platformName(c.identifier)})` : 'a removed channel';
}

/** The channels as chips ("Every channel" when the list is empty and `emptyMeansAll`). */
export function ChannelChips({ ids, channels, emptyMeansAll }: { ids: string[]; channels: Map<string, Integration>; emptyMeansAll?: boolean }) {
  if (ids.length === 0) return <span>{emptyMeansAll ? 'Every channel' : <span className="ap-muted">None</span>}</span>;
  return (
    <span className="ap-chips">
      {ids.map((id) => (
        <span key={id} className="ap-chip">
          {channelLabel(channels, id)}
        </span>
      ))}
    </span>
  );
}

/**
 * The channels to tick, as a labelled fieldset with its hint and the API's error for it.
 * Channels ticked but gone (deleted) stay listed, so saving does not silently drop them.
 */
export function ChannelChecklist({
  legend,
  hint,
  value,
  onChange,
  error,
  integrations,
}: {
  legend: string;
  hint: ReactNode;
  value: string[];
  onChange: (next: string[]) => void;
  error?: string;
  integrations: { isPending: boolean; error: unknown; data?: Integration[] };
}) {
  const id = useId();
  const known = new Set((integrations.data ?? []).map((i) => i.id));
  const unknown = value.filter((c) => !known.has(c));
  return (
    <fieldset className="ap-choices" aria-describedby={`${id}-hint${error ? ` ${id}-error` : ''}`} aria-invalid={error ? true : undefined}>
      <legend>{legend}</legend>
      <p className="hint" id={`${id}-hint`}>
        {hint}
      </p>
      {integrations.isPending ? (
        <Spinner label="Loading channels" />
      ) : integrations.error ? (
        <ErrorNotice error={integrations.error} />
      ) : (integrations.data ?? []).length === 0 && unknown.length === 0 ? (
        <p className="ap-muted">No channels connected yet: connect one under Channels first.</p>
      ) : (
        <div className="ap-choice-columns">
          {(integrations.data ?? []).map((i) => (
            <label key={i.id} className="ap-check">
              <input type="checkbox" checked={value.includes(i.id)} onChange={(e) => onChange(toggle(value, i.id, e.target.checked))} />
              <span>
                {i.name}
                <span className="ap-check-hint">
                  {platformName(i.identifier)}
                  {i.disabled ? ' · disabled' : ''}
                </span>
              </span>
            </label>
          ))}
          {unknown.map((c) => (
            <label key={c} className="ap-check">
              <input type="checkbox" checked onChange={(e) => onChange(toggle(value, c, e.target.checked))} />
              <span>
                <span className="ap-muted">A removed channel</span>
                <span className="ap-check-hint">{c}</span>
              </span>
            </label>
          ))}
        </div>
      )}
      {error ? (
        <p className="error" id={`${id}-error`} role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
