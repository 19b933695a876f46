import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.js';
import type { Integration } from '../../api/queries.js';
import { Button, ErrorNotice, Field, Modal, Spinner, TextInput } from '../../components/ui.js';
import { fieldError } from '../settings/errors.js';
import type { ComposeItem, ComposeState } from './model.js';
import { autoSignatureFor, itemsFromTemplate, sharedEntry, templateBodyFromState, templateKeys, useSignatures, useTemplates, type PostTemplate } from './templates.js';

/** What inserting a template does to the composer: the shared text, channels' own texts, channels to select. */
export interface TemplateInsert {
  shared: ComposeItem[];
  own: Record<string, ComposeItem[]>;
  channels: string[];
}

/** The composer's insert of a template: the shared entry's items, and each known channel's own entry. */
export function insertFromTemplate(template: PostTemplate, values: Record<string, string>, known: Set<string>): TemplateInsert {
  const shared = itemsFromTemplate(sharedEntry(template.body), values);
  const own: Record<string, ComposeItem[]> = {};
  for (const p of template.body.posts) if (p.integration && known.has(p.integration.id) && p !== sharedEntry(template.body)) own[p.integration.id] = itemsFromTemplate(p, values);
  const channels = template.body.posts.flatMap((p) => (p.integration && known.has(p.integration.id) ? [p.integration.id] : []));
  return { shared, own, channels };
}

function PlaceholderForm({ template, onInsert, onBack }: { template: PostTemplate; onInsert: (values: Record<string, string>) => void; onBack: () => void }) {
  const [values, setValues] = useState<Record<string, string>>({});
  const missing = template.placeholders.filter((p) => !(values[p] ?? '').trim());
  const [tried, setTried] = useState(false);
  function submit(e: FormEvent) {
    e.preventDefault();
    setTried(true);
    if (missing.length === 0) onInsert(values);
  }
  return (
    <form className="template-values" onSubmit={submit} noValidate aria-label={`Values for ${template.name}`}>
      {template.placeholders.length === 0 ? <p className="hint">This template has no placeholders.</p> : <p className="hint">Fill in the placeholders of “{template.name}”.</p>}
      {template.placeholders.map((p) => (
        <Field key={p} label={p} error={tried && missing.includes(p) ? 'Required' : undefined}>
          {(f) => <TextInput {...f} value={values[p] ?? ''} autoComplete="off" onChange={(e) => setValues((v) => ({ ...v, [p]: e.target.value }))} />}
        </Field>
      ))}
      <div className="dialog-actions">
        <Button variant="ghost" onClick={onBack}>
          Back
        </Button>
        <Button type="submit">Insert template</Button>
      </div>
    </form>
  );
}

/**
 * The composer's templates and signatures: insert a template (asking its placeholders), save the
 * post as a template, append a signature on demand to the text shown, and the note of the auto-add
 * signatures the chosen channels get when a new post is saved (`withAutoSignatures`).
 */
export function TemplateControls({
  state,
  selected,
  isNew,
  known,
  onInsert,
  onSignature,
}: {
  state: ComposeState;
  selected: Integration[];
  isNew: boolean;
  known: Set<string>;
  onInsert: (insert: TemplateInsert) => void;
  onSignature: (content: string) => void;
}) {
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const signatures = useSignatures();
  const [picking, setPicking] = useState(false);
  const [chosen, setChosen] = useState<PostTemplate | null>(null);
  const [saving, setSaving] = useState(false);
  const [signing, setSigning] = useState(false);
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string>();

  const save = useMutation({
    mutationFn: () => unwrap(api.POST('/templates', { body: { name: name.trim(), body: templateBodyFromState(state) } })),
    onSuccess: (t) => {
      setSaving(false);
      setSaved(`Saved as template “${t.name}”.`);
      setName('');
      void queryClient.invalidateQueries({ queryKey: templateKeys.templates });
    },
  });

  const auto = isNew
    ? selected.flatMap((c) => {
        const s = autoSignatureFor(signatures.data ?? [], c.id);
        return s ? [{ channel: c.name, signature: s.name }] : [];
      })
    : [];
  const bySignature = new Map<string, string[]>();
  for (const a of auto) bySignature.set(a.signature, [...(bySignature.get(a.signature) ?? []), a.channel]);

  return (
    <div className="compose-templates">
      <div className="compose-templates-row">
        <Button variant="secondary" className="compose-small" onClick={() => setPicking(true)}>
          Templates
        </Button>
        <Button variant="secondary" className="compose-small" onClick={() => (save.reset(), setSaved(undefined), setSaving(true))}>
          Save as template
        </Button>
        <Button variant="secondary" className="compose-small" onClick={() => setSigning(true)}>
          Signature
        </Button>
        <span role="status" className="hint">
          {saved ?? ''}
        </span>
      </div>
      {bySignature.size > 0 ? (
        <p className="hint compose-auto-signature">
          {[...bySignature].map(([sig, chans]) => `Signature “${sig}” is added at the end of the post on ${chans.join(', ')} when you save.`).join(' ')}
        </p>
      ) : null}

      <Modal open={picking} onOpenChange={(o) => (setPicking(o), o ? undefined : setChosen(null))} title={chosen ? `Use “${chosen.name}”` : 'Insert a template'} wide>
        {chosen ? (
          <PlaceholderForm
            template={chosen}
            onBack={() => setChosen(null)}
            onInsert={(values) => {
              onInsert(insertFromTemplate(chosen, values, known));
              setChosen(null);
              setPicking(false);
            }}
          />
        ) : templates.isPending ? (
          <Spinner label="Loading templates" />
        ) : templates.error ? (
          <ErrorNotice error={templates.error} />
        ) : templates.data.length === 0 ? (
          <p className="muted">No templates yet: use “Save as template”, or create one in Settings → Templates &amp; signatures.</p>
        ) : (
          <ul className="compose-template-list">
            {templates.data.map((t) => (
              <li key={t.id}>
                <button type="button" className="compose-template-pick" onClick={() => setChosen(t)}>
                  <strong>{t.name}</strong>
                  <span className="hint">{t.description || sharedEntry(t.body).value[0]?.content}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        {!chosen ? <p className="hint">Inserting replaces the shared text.</p> : null}
      </Modal>

      <Modal open={saving} onOpenChange={setSaving} title="Save as template">
        <form
          className="template-values"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate();
          }}
        >
          <p className="hint">The shared text, channels’ own texts and media are saved; write {'{{name}}'} in the text for a value asked each time.</p>
          <Field label="Template name" error={fieldError(save.error, 'name')}>
            {(f) => <TextInput {...f} value={name} maxLength={100} autoComplete="off" onChange={(e) => setName(e.target.value)} />}
          </Field>
          {save.error && !fieldError(save.error, 'name') ? <ErrorNotice error={save.error} /> : null}
          <div className="dialog-actions">
            <Button variant="ghost" onClick={() => setSaving(false)} disabled={save.isPending}>
              Cancel
            </Button>
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Save template'}
            </Button>
          </div>
        </form>
      </Modal>

      <Modal open={signing} onOpenChange={setSigning} title="Add a signature">
        {signatures.isPending ? (
          <Spinner label="Loading signatures" />
        ) : signatures.error ? (
          <ErrorNotice error={signatures.error} />
        ) : signatures.data.length === 0 ? (
          <p className="muted">No signatures yet: create one in Settings → Templates &amp; signatures.</p>
        ) : (
          <ul className="compose-template-list">
            {signatures.data.map((s) => (
              <li key={s.id}>
                <button
                  type="button"
                  className="compose-template-pick"
                  onClick={() => {
                    onSignature(s.content);
                    setSigning(false);
                  }}
                >
                  <strong>{s.name}</strong>
                  <span className="hint">{s.content}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
        <p className="hint">Added at the end of the first item of the text shown (the shared text, or the channel’s own).</p>
      </Modal>
    </div>
  );
}
