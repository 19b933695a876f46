import { useId, useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { Field, TextInput, UrlInput } from '../../components/ui.js';
import { ChannelChecklist, FormFooter, toggle, useFormSave } from './common.js';
import { fieldError } from './errors.js';
import { EVENT_GROUPS, EVENT_LABELS } from './webhookEvents.js';
import type { CreatedWebhook, SubscribableEventType, Webhook } from './types.js';

const FORM_FIELDS = ['name', 'url', 'events', 'integrations', 'enabled'] as const;

/**
 * Create or edit a webhook: name, URL, the events it receives (none ticked = all), the channels
 * whose events it receives (none ticked = every channel), enabled. The API checks the URL (public
 * addresses only) and names it when it refuses.
 */
export function WebhookForm({ webhook, onSaved, onCancel }: { webhook?: Webhook; onSaved: (saved: CreatedWebhook | Webhook) => void; onCancel: () => void }) {
  const id = useId();
  const [name, setName] = useState(webhook?.name ?? '');
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<SubscribableEventType[]>(() => (webhook?.events ?? []).filter((e): e is SubscribableEventType => e in EVENT_LABELS));
  const [channels, setChannels] = useState<string[]>(webhook?.integrations ?? []);
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);

  const { save, submit } = useFormSave(async (): Promise<CreatedWebhook | Webhook> => {
    const body = { name: name.trim(), url: url.trim(), events, integrations: channels, enabled };
    if (webhook) return unwrap(api.PUT('/webhooks/{id}', { params: { path: { id: webhook.id } }, body }));
    return unwrap(api.POST('/webhooks', { body }));
  }, onSaved);

  const eventsError = fieldError(save.error, 'events');
  const channelsError = fieldError(save.error, 'integrations');

  return (
    <form className="webhook-form" onSubmit={submit} noValidate>
      <Field label="Name" error={fieldError(save.error, 'name')}>
        {(p) => <TextInput {...p} value={name} maxLength={100} required autoComplete="off" placeholder="e.g. CRM sync" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="URL" hint="Where events are POSTed (http or https). It must reach a public address." error={fieldError(save.error, 'url')}>
        {(p) => <UrlInput {...p} value={url} placeholder="https://example.com/hooks/tidings" onValue={setUrl} onChanged={() => fieldError(save.error, 'url') && save.reset()} />}
      </Field>

      <fieldset className="choice-group" aria-describedby={`${id}-events-hint${eventsError ? ` ${id}-events-error` : ''}`}>
        <legend>Events</legend>
        <p className="hint" id={`${id}-events-hint`}>
          {events.length === 0 ? 'None ticked: every event is sent, including types added later.' : `${events.length} of ${Object.keys(EVENT_LABELS).length} event types.`}
        </p>
        <div className="choice-columns">
          {EVENT_GROUPS.map((g) => (
            <div key={g.label} className="choice-column">
              <p className="choice-heading">{g.label}</p>
              {g.types.map((t) => (
                <label key={t} className="check">
                  <input type="checkbox" checked={events.includes(t)} onChange={(e) => setEvents((list) => toggle(list, t, e.target.checked))} />
                  <span>
                    <code>{t}</code>
                    <span className="check-hint">{EVENT_LABELS[t]}</span>
                  </span>
                </label>
              ))}
            </div>
          ))}
        </div>
        {eventsError ? (
          <p className="error" id={`${id}-events-error`} role="alert">
            {eventsError}
          </p>
        ) : null}
      </fieldset>

      <ChannelChecklist
        channels={channels}
        setChannels={setChannels}
        error={channelsError}
        showRemoved
        hint={channels.length === 0 ? 'None ticked: events of every channel are sent. Events not about a channel always are.' : `Only events about the ${channels.length} ticked ${channels.length === 1 ? 'channel' : 'channels'} (and events not about a channel).`}
      />

      <label className="check check-enabled">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <span>
          Enabled
          <span className="check-hint">{webhook?.disabledReason && !webhook.enabled ? 'Ticking it re-enables the webhook the service disabled.' : 'Disabling it cancels the deliveries still waiting.'}</span>
        </span>
      </label>

      <FormFooter error={save.error} fields={FORM_FIELDS} pending={save.isPending} onCancel={onCancel} submitLabel={webhook ? 'Save changes' : 'Create webhook'} />
    </form>
  );
}
