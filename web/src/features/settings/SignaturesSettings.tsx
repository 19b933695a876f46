import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useIntegrations } from '../../api/queries.js';
import { Button, EmptyState, ErrorNotice, Field, Modal, Spinner, TextInput } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { templateKeys, useSignatures, type Signature } from '../compose/templates.js';
import { ConfirmButton, LoadError, Section } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';

const FORM_FIELDS = ['name', 'content', 'autoAdd', 'integrationIds'] as const;

function SignatureForm({ signature, onSaved, onCancel }: { signature?: Signature; onSaved: () => void; onCancel: () => void }) {
  const id = useId();
  const integrations = useIntegrations();
  const [name, setName] = useState(signature?.name ?? '');
  const [content, setContent] = useState(signature?.content ?? '');
  const [autoAdd, setAutoAdd] = useState(signature?.autoAdd ?? false);
  const [channels, setChannels] = useState<string[]>(signature?.integrationIds ?? []);

  const save = useMutation({
    mutationFn: async () => {
      const body = { name: name.trim(), content, autoAdd, integrationIds: channels };
      if (signature) return unwrap(api.PUT('/signatures/{id}', { params: { path: { id: signature.id } }, body }));
      return unwrap(api.POST('/signatures', { body }));
    },
    onSuccess: onSaved,
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }
  const channelsError = fieldError(save.error, 'integrationIds');

  return (
    <form className="signature-form" onSubmit={submit} noValidate>
      <Field label="Name" error={fieldError(save.error, 'name')}>
        {(p) => <TextInput {...p} value={name} maxLength={100} required autoComplete="off" placeholder="e.g. Team sign-off" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Signature text" hint="Added at the end of a post’s first item, after a blank line." error={fieldError(save.error, 'content')}>
        {(p) => <textarea {...p} className="input" rows={3} maxLength={2000} value={content} onChange={(e) => setContent(e.target.value)} />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={autoAdd} onChange={(e) => setAutoAdd(e.target.checked)} />
        <span>
          Add automatically
          <span className="check-hint">To every new post on its channels (one automatic signature per channel). Otherwise it is added on demand with the composer’s Signature button.</span>
        </span>
      </label>
      <fieldset className="choice-group" aria-describedby={`${id}-channels-hint${channelsError ? ` ${id}-channels-error` : ''}`}>
        <legend>Channels</legend>
        <p className="hint" id={`${id}-channels-hint`}>
          {channels.length === 0 ? 'None ticked: every channel.' : `The ${channels.length} ticked ${channels.length === 1 ? 'channel' : 'channels'}.`}
        </p>
        {integrations.isPending ? (
          <Spinner label="Loading channels" />
        ) : integrations.error ? (
          <ErrorNotice error={integrations.error} />
        ) : integrations.data.length === 0 ? (
          <p className="muted">No channels connected yet.</p>
        ) : (
          <div className="choice-columns">
            {integrations.data.map((i) => (
              <label key={i.id} className="check">
                <input type="checkbox" checked={channels.includes(i.id)} onChange={(e) => setChannels((list) => (e.target.checked ? [...list, i.id] : list.filter((x) => x !== i.id)))} />
                <span>
                  {i.name}
                  <span className="check-hint">{platformName(i.identifier)}</span>
                </span>
              </label>
            ))}
          </div>
        )}
        {channelsError ? (
          <p className="error" id={`${id}-channels-error`} role="alert">
            {channelsError}
          </p>
        ) : null}
      </fieldset>
      {save.error && !onlyFieldErrors(save.error, FORM_FIELDS) ? <ErrorNotice error={save.error} /> : null}
      <div className="dialog-actions">
        <Button variant="ghost" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : signature ? 'Save changes' : 'Create signature'}
        </Button>
      </div>
    </form>
  );
}

/** The organisation's signatures: list, create, edit, delete. */
export function SignaturesSettings() {
  const queryClient = useQueryClient();
  const signatures = useSignatures();
  const integrations = useIntegrations();
  const [editing, setEditing] = useState<Signature | 'new' | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: templateKeys.signatures });
  const channelNames = new Map((integrations.data ?? []).map((i) => [i.id, i.name]));

  return (
    <Section
      title="Signatures"
      description="Text added at the end of a post: automatically to new posts on chosen channels, or on demand from the composer."
      actions={<Button onClick={() => setEditing('new')}>New signature</Button>}
    >
      {signatures.isPending ? (
        <Spinner label="Loading signatures" />
      ) : signatures.error ? (
        <LoadError error={signatures.error} what="signatures" />
      ) : signatures.data.length === 0 ? (
        <EmptyState title="No signatures yet" />
      ) : (
        <ul className="template-list">
          {signatures.data.map((s) => (
            <li key={s.id} className="card template-card">
              <div className="template-head">
                <h3>{s.name}</h3>
                <span className={`badge${s.autoAdd ? ' badge-ok' : ''}`}>{s.autoAdd ? 'Added automatically' : 'On demand'}</span>
                <div className="template-actions">
                  <Button variant="secondary" onClick={() => setEditing(s)} aria-label={`Edit ${s.name}`}>
                    Edit
                  </Button>
                  <ConfirmButton
                    label="Delete"
                    ariaLabel={`Delete ${s.name}`}
                    title={`Delete “${s.name}”?`}
                    confirmLabel="Delete signature"
                    onConfirm={async () => {
                      await unwrap(api.DELETE('/signatures/{id}', { params: { path: { id: s.id } } }));
                      await invalidate();
                    }}
                  >
                    <p>Posts that already carry it keep their text.</p>
                  </ConfirmButton>
                </div>
              </div>
              <p className="template-preview">{s.content}</p>
              <p className="hint">{s.integrationIds.length === 0 ? 'Every channel' : s.integrationIds.map((c) => channelNames.get(c) ?? 'a removed channel').join(', ')}</p>
            </li>
          ))}
        </ul>
      )}
      <Modal open={editing !== null} onOpenChange={(o) => (o ? undefined : setEditing(null))} title={editing === 'new' ? 'New signature' : editing ? `Edit “${editing.name}”` : ''} wide>
        {editing !== null ? (
          <SignatureForm
            signature={editing === 'new' ? undefined : editing}
            onCancel={() => setEditing(null)}
            onSaved={() => {
              setEditing(null);
              void invalidate();
            }}
          />
        ) : null}
      </Modal>
    </Section>
  );
}
