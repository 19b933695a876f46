import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { Button, EmptyState, ErrorNotice, Spinner } from '../../components/ui.js';
import { When } from './common.js';
import { settingsKeys, type DeliveryEntry } from './types.js';

const STATE_LABEL: Record<DeliveryEntry['state'], string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Gave up', cancelled: 'Cancelled' };

/** What one attempt got: the receiver's status, or why nothing came back, or "not sent yet". */
export function attemptOutcome(d: DeliveryEntry): { text: string; kind: 'ok' | 'bad' | 'wait' } {
  if (d.attempt === 0) return { text: 'Not sent yet', kind: 'wait' };
  if (d.statusCode !== null) return { text: String(d.statusCode), kind: d.statusCode >= 200 && d.statusCode < 300 ? 'ok' : 'bad' };
  return { text: 'No answer', kind: 'bad' };
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function ResendButton({ webhookId, entry }: { webhookId: string; entry: DeliveryEntry }) {
  const queryClient = useQueryClient();
  const resend = useMutation({
    mutationFn: () => unwrap(api.POST('/webhooks/{id}/deliveries/{deliveryId}/resend', { params: { path: { id: webhookId, deliveryId: entry.deliveryId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: settingsKeys.deliveries(webhookId) }),
  });
  return (
    <>
      <Button
        variant="secondary"
        className="btn-small"
        aria-label={`Resend ${entry.eventType} (delivery ${entry.deliveryId})`}
        disabled={resend.isPending || entry.state === 'pending'}
        title={entry.state === 'pending' ? 'Already waiting to be sent' : 'Send it again now, with the same webhook-id'}
        onClick={() => resend.mutate()}
      >
        {resend.isPending ? 'Resending…' : 'Resend'}
      </Button>
      {resend.error ? <ErrorNotice error={resend.error} /> : null}
    </>
  );
}

/** One row of the log: an attempt (or a delivery not attempted yet). `first` rows carry the delivery's resend. */
export function DeliveryRow({ webhookId, entry, first }: { webhookId: string; entry: DeliveryEntry; first: boolean }) {
  const outcome = attemptOutcome(entry);
  return (
    <tr data-delivery={entry.deliveryId}>
      <td>
        <When iso={entry.at} opts={{ dateStyle: 'short', timeStyle: 'medium' }} />
      </td>
      <td>
        <code className="event-type">{entry.eventType}</code>
        <div className="muted mono-small" title={`event ${entry.eventId}\ndelivery (webhook-id) ${entry.deliveryId}`}>
          {entry.eventId.slice(0, 8)}
        </div>
      </td>
      <td className="num">{entry.attempt === 0 ? '—' : entry.attempt}</td>
      <td>
        <span className={`outcome outcome-${outcome.kind}`}>{outcome.text}</span>
        {entry.error ? <div className="delivery-error">{entry.error}</div> : null}
      </td>
      <td className="num">{formatDuration(entry.durationMs)}</td>
      <td className="snippet-cell">
        {entry.responseSnippet ? (
          entry.responseSnippet.length > 60 ? (
            <details>
              <summary>
                <code>{entry.responseSnippet.slice(0, 60)}…</code>
              </summary>
              <pre className="snippet">{entry.responseSnippet}</pre>
            </details>
          ) : (
            <code>{entry.responseSnippet}</code>
          )
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td>
        <When iso={entry.nextAttemptAt} opts={{ dateStyle: 'short', timeStyle: 'medium' }} />
      </td>
      <td>
        <span className={`badge delivery-${entry.state}`}>{STATE_LABEL[entry.state]}</span>
      </td>
      <td className="actions">{first ? <ResendButton webhookId={webhookId} entry={entry} /> : null}</td>
    </tr>
  );
}

/**
 * A webhook's delivery log (GET /webhooks/{id}/deliveries): every attempt, newest first, 50 a
 * page. It refreshes by itself while something is waiting to be sent.
 */
export function DeliveryLog({ webhookId }: { webhookId: string }) {
  const [page, setPage] = useState(0);
  const log = useQuery({
    queryKey: settingsKeys.deliveries(webhookId, page),
    queryFn: () => unwrap(api.GET('/webhooks/{id}/deliveries', { params: { path: { id: webhookId }, query: { page } } })),
    placeholderData: keepPreviousData,
    refetchInterval: (q) => (q.state.data?.deliveries.some((d) => d.state === 'pending') ? 2000 : false),
  });

  if (log.isPending) return <Spinner label="Loading deliveries" />;
  if (log.error) return <ErrorNotice error={log.error} />;
  const { deliveries, total, limit, hasMore } = log.data;
  const pages = Math.max(1, Math.ceil(total / limit));
  const seen = new Set<string>();

  return (
    <div className="delivery-log">
      {deliveries.length === 0 ? (
        <EmptyState title="No deliveries yet">
          <p>Send a test event to see one.</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table table-compact">
            <caption className="visually-hidden">Delivery attempts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col" className="num">
                  Attempt
                </th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Duration
                </th>
                <th scope="col">Response</th>
                <th scope="col">Next retry</th>
                <th scope="col">Delivery</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d, i) => {
                const first = !seen.has(d.deliveryId);
                seen.add(d.deliveryId);
                return <DeliveryRow key={`${d.deliveryId}-${d.attempt}-${i}`} webhookId={webhookId} entry={d} first={first} />;
              })}
            </tbody>
          </table>
        </div>
      )}
      <div className="pager">
        <Button variant="ghost" className="btn-small" disabled={page === 0} onClick={() => setPage((p) => Math.max(0, p - 1))}>
          ← Newer
        </Button>
        <span className="muted">
          Page {page + 1} of {pages} · {total} {total === 1 ? 'entry' : 'entries'}
          {log.isFetching ? ' · refreshing…' : ''}
        </span>
        <Button variant="ghost" className="btn-small" disabled={!hasMore} onClick={() => setPage((p) => p + 1)}>
          Older →
        </Button>
        <Button variant="ghost" className="btn-small" onClick={() => void log.refetch()}>
          Refresh
        </Button>
      </div>
    </div>
  );
}
