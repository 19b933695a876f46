import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useIntegrations } from '../../api/queries.js';
import { Button, EmptyState, ErrorNotice, Modal, Notice, Spinner } from '../../components/ui.js';
import { ConfirmButton, LoadError, Section, ShownOnce, When } from './common.js';
import { DeliveryLog } from './DeliveryLog.js';
import { EVENT_LABELS } from './webhookEvents.js';
import { WebhookForm } from './WebhookForm.js';
import { settingsKeys, type Webhook } from './types.js';

/** A signing secret the API answered once: at creation, or at rotation (then the previous one still signs for 24 h). */
export interface RevealedSecret {
  webhookName: string;
  secret: string;
  previousValidUntil?: string;
}

export function SecretReveal({ revealed, onDone }: { revealed: RevealedSecret; onDone: () => void }) {
  return (
    <ShownOnce
      title={revealed.previousValidUntil ? `New signing secret of “${revealed.webhookName}”` : `Signing secret of “${revealed.webhookName}”`}
      label="Signing secret"
      secret={revealed.secret}
      warning="Copy the signing secret now: it is shown only once. Your receiver verifies the webhook-signature header of each delivery with it (Standard Webhooks)."
      onDone={onDone}
    >
      {revealed.previousValidUntil ? (
        <p className="hint">
          The previous secret keeps signing deliveries, next to the new one, until <When iso={revealed.previousValidUntil} /> (24 hours): switch your receiver to the new secret before then and no delivery fails verification.
        </p>
      ) : null}
    </ShownOnce>
  );
}

function WebhookCard({ webhook, channelNames, onEdit, onSecret }: { webhook: Webhook; channelNames: Map<string, string>; onEdit: () => void; onSecret: (r: RevealedSecret) => void }) {
  const queryClient = useQueryClient();
  const [logOpen, setLogOpen] = useState(false);
  const invalidateList = () => queryClient.invalidateQueries({ queryKey: settingsKeys.webhooks });
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/webhooks/{id}/test', { params: { path: { id: webhook.id } } })),
    onSuccess: () => {
      setLogOpen(true);
      return queryClient.invalidateQueries({ queryKey: settingsKeys.deliveries(webhook.id) });
    },
  });
  const enable = useMutation({
    mutationFn: () => unwrap(api.PUT('/webhooks/{id}', { params: { path: { id: webhook.id } }, body: { enabled: true } })),
    onSuccess: invalidateList,
  });
  const logId = `webhook-log-${webhook.id}`;
  const rotationRunning = webhook.secretPreviousValidUntil !== null && new Date(webhook.secretPreviousValidUntil).getTime() > Date.now();

  return (
    <li className="card webhook-card">
      <div className="webhook-head">
        <div className="webhook-title">
          <h3>{webhook.name}</h3>
          {webhook.enabled ? <span className="badge badge-ok">Enabled</span> : <span className="badge badge-bad">{webhook.disabledReason ? 'Disabled by Tidings' : 'Disabled'}</span>}
        </div>
        <div className="webhook-actions">
          <Button variant="secondary" onClick={() => test.mutate()} disabled={test.isPending} aria-label={`Send a test event to ${webhook.name}`}>
            {test.isPending ? 'Sending…' : 'Send test event'}
          </Button>
          <Button variant="secondary" onClick={onEdit} aria-label={`Edit ${webhook.name}`}>
            Edit
          </Button>
          <ConfirmButton
            variant="secondary"
            label="Rotate secret"
            ariaLabel={`Rotate the signing secret of ${webhook.name}`}
            title={`Rotate the signing secret of “${webhook.name}”?`}
            confirmLabel="Rotate secret"
            onConfirm={async () => {
              const r = await unwrap(api.POST('/webhooks/{id}/rotate-secret', { params: { path: { id: webhook.id } } }));
              onSecret({ webhookName: webhook.name, secret: r.secret, previousValidUntil: r.previousValidUntil });
              await invalidateList();
            }}
          >
            <p>A new secret is made and shown once. For 24 hours every delivery carries two signatures, one with the new secret and one with the current one, so your receiver can switch without missing any.</p>
          </ConfirmButton>
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete ${webhook.name}`}
            title={`Delete “${webhook.name}”?`}
            confirmLabel="Delete webhook"
            onConfirm={async () => {
              await unwrap(api.DELETE('/webhooks/{id}', { params: { path: { id: webhook.id } } }));
              await invalidateList();
            }}
          >
            <p>
              Events stop going to <code>{webhook.url}</code> and the deliveries still waiting are cancelled. Its delivery log goes with it.
            </p>
          </ConfirmButton>
        </div>
      </div>
      <p className="webhook-url">
        <span className="muted">POST</span> <code>{webhook.url}</code>
      </p>
      <dl className="webhook-meta">
        <div>
          <dt>Events</dt>
          <dd>
            {webhook.events.length === 0
              ? 'All events'
              : webhook.events.map((e) => (
                  <code key={e} className="chip" title={e in EVENT_LABELS ? EVENT_LABELS[e as keyof typeof EVENT_LABELS] : undefined}>
                    {e}
                  </code>
                ))}
          </dd>
        </div>
        <div>
          <dt>Channels</dt>
          <dd>
            {webhook.integrations.length === 0
              ? 'Every channel'
              : webhook.integrations.map((c) => (
                  <span key={c} className="chip">
                    {channelNames.get(c) ?? 'a removed channel'}
                  </span>
                ))}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <When iso={webhook.createdAt} />
          </dd>
        </div>
      </dl>
      {webhook.disabledReason && !webhook.enabled ? (
        <Notice kind="bad">
          <strong>The service disabled this webhook:</strong> {webhook.disabledReason}.{' '}
          <Button variant="secondary" className="btn-small" onClick={() => enable.mutate()} disabled={enable.isPending}>
            Re-enable
          </Button>
        </Notice>
      ) : null}
      {enable.error ? <ErrorNotice error={enable.error} /> : null}
      {rotationRunning ? (
        <p className="hint">
          Secret rotated: the previous secret also signs deliveries until <When iso={webhook.secretPreviousValidUntil} />.
        </p>
      ) : null}
      {test.isSuccess ? (
        <Notice kind="ok">
          Test event queued (webhook-id <code>{test.data.deliveryId}</code>). It appears in the log below once sent.
        </Notice>
      ) : null}
      {test.error ? <ErrorNotice error={test.error} /> : null}
      <div className="webhook-foot">
        <Button variant="ghost" aria-expanded={logOpen} aria-controls={logId} onClick={() => setLogOpen((o) => !o)}>
          {logOpen ? '▾ Hide delivery log' : '▸ Delivery log'}
        </Button>
      </div>
      {logOpen ? (
        <div id={logId}>
          <DeliveryLog webhookId={webhook.id} />
        </div>
      ) : null}
    </li>
  );
}

/** The organisation's webhooks: create, edit, test, rotate the secret, the delivery log, delete. */
export function WebhooksSettings() {
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: settingsKeys.webhooks, queryFn: () => unwrap(api.GET('/webhooks')) });
  const integrations = useIntegrations();
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [revealed, setRevealed] = useState<RevealedSecret | null>(null);
  const channelNames = new Map((integrations.data ?? []).map((i) => [i.id, i.name]));

  return (
    <Section
      title="Webhooks"
      description="Tidings POSTs an event to each webhook when posts are scheduled, published, fail or are deleted, and when channels connect or need attention. Each delivery is signed (Standard Webhooks), retried up to 7 times over about a day when your receiver does not answer 2xx, and logged."
      actions={
        <Button onClick={() => setEditing('new')} disabled={revealed !== null}>
          New webhook
        </Button>
      }
    >
      {revealed ? <SecretReveal revealed={revealed} onDone={() => setRevealed(null)} /> : null}
      {webhooks.isPending ? (
        <Spinner label="Loading webhooks" />
      ) : webhooks.error ? (
        <LoadError error={webhooks.error} what="webhooks" />
      ) : webhooks.data.length === 0 ? (
        <EmptyState title="No webhooks yet">
          <p>Create one to receive events at your own URL.</p>
        </EmptyState>
      ) : (
        <ul className="webhook-list">
          {webhooks.data.map((w) => (
            <WebhookCard key={w.id} webhook={w} channelNames={channelNames} onEdit={() => setEditing(w)} onSecret={setRevealed} />
          ))}
        </ul>
      )}
      <Modal open={editing !== null} onOpenChange={(o) => (o ? undefined : setEditing(null))} title={editing === 'new' ? 'New webhook' : editing ? `Edit “${editing.name}”` : ''} wide>
        {editing !== null ? (
          <WebhookForm
            webhook={editing === 'new' ? undefined : editing}
            onCancel={() => setEditing(null)}
            onSaved={(saved) => {
              setEditing(null);
              if ('secret' in saved) setRevealed({ webhookName: saved.name, secret: saved.secret });
              void queryClient.invalidateQueries({ queryKey: settingsKeys.webhooks });
            }}
          />
        ) : null}
      </Modal>
    </Section>
  );
}
