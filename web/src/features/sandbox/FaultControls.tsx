import { useId, useState, type ReactNode } from 'react';
import type { Integration } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Notice, TextInput } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { useSandboxFaultMutations, useSandboxFaults, type SandboxFaultBody } from './queries.js';

/** One control: its button and, in one line, what the platform will do. */
function Control({ children, explain, id }: { children: ReactNode; explain: string; id: string }) {
  return (
    <li className="sbx-fault">
      <div className="sbx-fault-controls">{children}</div>
      <p className="hint sbx-fault-explain" id={id}>
        {explain}
      </p>
    </li>
  );
}

/**
 * Failure controls of a sandbox channel: make the simulated platform fail as the real one does
 * (POST /sandbox/channels/{id}/faults); the publishing engine's retry policy, notifications and
 * webhooks then run as they would for real. The outages in progress come from GET faults.
 */
export function FaultControls({ channel, platform }: { channel: Integration; platform: string }) {
  const ids = useId();
  const timeZone = useTimeZone();
  const faults = useSandboxFaults(channel.id);
  const { inject, end } = useSandboxFaultMutations(channel.id);
  const [downMinutes, setDownMinutes] = useState('5');
  const [slowMinutes, setSlowMinutes] = useState('5');
  const [slowSeconds, setSlowSeconds] = useState('5');
  const [done, setDone] = useState<string | null>(null);

  const fire = (body: SandboxFaultBody, said: string) => {
    setDone(null);
    inject.mutate(body, { onSuccess: () => setDone(said) });
  };
  const num = (v: string, fallback: number) => (v.trim() === '' || Number.isNaN(Number(v)) ? fallback : Number(v));
  const busy = inject.isPending || end.isPending;
  const f = faults.data;
  const now = Date.now();
  const down = f?.downUntil && Date.parse(f.downUntil) > now ? f.downUntil : null;
  const slow = f?.slowUntil && Date.parse(f.slowUntil) > now ? f.slowUntil : null;
  const at = (iso: string) => (
    <time dateTime={iso} title={utcTitle(iso)}>
      {formatDateTime(iso, timeZone, { timeStyle: 'short' })}
    </time>
  );

  return (
    <section className="sbx-faults card" aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`}>Make {platform} fail</h2>
      <p className="hint">Each control makes the sandbox answer as {platform} does when it happens (for every sandbox {platform} channel of this organisation); Tidings then retries, notifies and reports as it would for real.</p>
      <ul className="sbx-fault-list">
        <Control id={`${ids}-revoked`} explain={`${platform} withdraws Tidings' access: the next post fails and the channel asks to be reconnected.`}>
          <Button variant="secondary" aria-describedby={`${ids}-revoked`} disabled={busy} onClick={() => fire({ kind: 'revoked' }, 'Access revoked.')}>
            Revoke access
          </Button>
        </Control>
        <Control id={`${ids}-rate`} explain={`The next request is throttled with ${platform}'s wait: the post waits and is retried after it.`}>
          <Button variant="secondary" aria-describedby={`${ids}-rate`} disabled={busy} onClick={() => fire({ kind: 'rate_limited' }, 'The next request will be rate limited.')}>
            Rate limited
          </Button>
        </Control>
        <Control id={`${ids}-media`} explain={`The next post's media is refused in ${platform}'s words: the post ends in error, not retried.`}>
          <Button variant="secondary" aria-describedby={`${ids}-media`} disabled={busy} onClick={() => fire({ kind: 'media_refused' }, 'The next post’s media will be refused.')}>
            Media refused
          </Button>
        </Control>
        <Control id={`${ids}-dup`} explain={`The next post is refused as a duplicate of an earlier one, as ${platform} does.`}>
          <Button variant="secondary" aria-describedby={`${ids}-dup`} disabled={busy} onClick={() => fire({ kind: 'duplicate' }, 'The next post will be refused as a duplicate.')}>
            Duplicate
          </Button>
        </Control>
        <Control id={`${ids}-down`} explain={`Every request answers 503 for that long: posts wait and are retried once ${platform} is back.`}>
          <label className="sbx-num">
            <span>Minutes</span>
            <TextInput type="number" min={1} max={1440} inputMode="numeric" value={downMinutes} onChange={(e) => setDownMinutes(e.target.value)} aria-label="Down for how many minutes" />
          </label>
          <Button
            variant="secondary"
            aria-describedby={`${ids}-down`}
            disabled={busy}
            onClick={() => {
              const minutes = num(downMinutes, 5);
              fire({ kind: 'down', minutes }, `${platform} is down for ${minutes} minutes.`);
            }}
          >
            Down for {num(downMinutes, 5)} minutes
          </Button>
        </Control>
        <Control id={`${ids}-slow`} explain={`Every request waits that many seconds for that many minutes: publishing is slow, and long waits time out and retry.`}>
          <label className="sbx-num">
            <span>Minutes</span>
            <TextInput type="number" min={1} max={1440} inputMode="numeric" value={slowMinutes} onChange={(e) => setSlowMinutes(e.target.value)} aria-label="Slow for how many minutes" />
          </label>
          <label className="sbx-num">
            <span>Seconds</span>
            <TextInput type="number" min={1} max={120} inputMode="numeric" value={slowSeconds} onChange={(e) => setSlowSeconds(e.target.value)} aria-label="Seconds each request waits" />
          </label>
          <Button
            variant="secondary"
            aria-describedby={`${ids}-slow`}
            disabled={busy}
            onClick={() => {
              const minutes = num(slowMinutes, 5);
              const delaySeconds = num(slowSeconds, 5);
              fire({ kind: 'slow', minutes, delaySeconds }, `${platform} is slow (${delaySeconds} s a request) for ${minutes} minutes.`);
            }}
          >
            Slow
          </Button>
        </Control>
      </ul>
      <div className="sbx-outages" aria-live="polite">
        <h3>Outages in progress</h3>
        {faults.error ? <ErrorNotice error={faults.error} /> : null}
        {down || slow ? (
          <ul>
            {down ? <li>Down (503) until {at(down)}</li> : null}
            {slow ? (
              <li>
                Slow ({f?.slowSeconds ?? '?'} s a request) until {at(slow)}
              </li>
            ) : null}
          </ul>
        ) : (
          <p className="hint">None: {platform} answers normally.</p>
        )}
        <Button variant="secondary" disabled={busy || (!down && !slow)} onClick={() => end.mutate(undefined, { onSuccess: () => setDone('Outages ended.') })}>
          End outages
        </Button>
        <p className="hint">Ends the down and slow periods now; the one-off faults above apply to the next request only.</p>
      </div>
      {inject.error ? <ErrorNotice error={inject.error} /> : null}
      {end.error ? <ErrorNotice error={end.error} /> : null}
      {done ? <Notice kind="ok">{done}</Notice> : null}
    </section>
  );
}
