import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { useIntegrations } from '../../api/queries.js';
import { Field, TextInput } from '../../components/ui.js';
import { templateKeys, useSignatures, type Signature } from '../compose/templates.js';
import { ChannelChecklist, FormFooter, useFormSave } from './common.js';
import { fieldError } from './errors.js';
import { NamedItemsSection } from './NamedItemsSection.js';

const FORM_FIELDS = ['name', 'content', 'autoAdd', 'integrationIds'] as const;

function SignatureForm({ signature, onSaved, onCancel }: { signature?: Signature; onSaved: () => void; onCancel: () => void }) {
  const [name, setName] = useState(signature?.name ?? '');
  const [content, setContent] = useState(signature?.content ?? '');
  const [autoAdd, setAutoAdd] = useState(signature?.autoAdd ?? false);
  const [channels, setChannels] = useState<string[]>(signature?.integrationIds ?? []);

  const { save, submit } = useFormSave(async () => {
    const body = { name: name.trim(), content, autoAdd, integrationIds: channels };
    if (signature) return unwrap(api.PUT('/signatures/{id}', { params: { path: { id: signature.id } }, body }));
    return unwrap(api.POST('/signatures', { body }));
  }, onSaved);

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
      <ChannelChecklist
        channels={channels}
        setChannels={setChannels}
        error={fieldError(save.error, 'integrationIds')}
        hint={channels.length === 0 ? 'None ticked: every channel.' : `The ${channels.length} ticked ${channels.length === 1 ? 'channel' : 'channels'}.`}
      />
      <FormFooter error={save.error} fields={FORM_FIELDS} pending={save.isPending} onCancel={onCancel} submitLabel={signature ? 'Save changes' : 'Create signature'} />
    </form>
  );
}

/** The organisation's signatures: list, create, edit, delete. */
export function SignaturesSettings() {
  const queryClient = useQueryClient();
  const signatures = useSignatures();
  const integrations = useIntegrations();
  const channelNames = new Map((integrations.data ?? []).map((i) => [i.id, i.name]));

  return (
    <NamedItemsSection
      title="Signatures"
      description="Text added at the end of a post: automatically to new posts on chosen channels, or on demand from the composer."
      noun="signature"
      plural="signatures"
      query={signatures}
      badge={(s) => <span className={`badge${s.autoAdd ? ' badge-ok' : ''}`}>{s.autoAdd ? 'Added automatically' : 'On demand'}</span>}
      details={(s) => (
        <>
          <p className="template-preview">{s.content}</p>
          <p className="hint">{s.integrationIds.length === 0 ? 'Every channel' : s.integrationIds.map((c) => channelNames.get(c) ?? 'a removed channel').join(', ')}</p>
        </>
      )}
      deleteNote={<p>Posts that already carry it keep their text.</p>}
      onDelete={(s) => unwrap(api.DELETE('/signatures/{id}', { params: { path: { id: s.id } } }))}
      onChanged={() => queryClient.invalidateQueries({ queryKey: templateKeys.signatures })}
      form={({ item, onCancel, onSaved }) => <SignatureForm signature={item} onCancel={onCancel} onSaved={onSaved} />}
    />
  );
}
