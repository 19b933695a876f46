import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../api/client.js';
import { Field, TextInput } from '../../components/ui.js';
import { placeholdersIn, sharedEntry, templateKeys, useTemplates, type PostTemplate } from '../compose/templates.js';
import { FormFooter, useFormSave } from './common.js';
import { fieldError } from './errors.js';
import { NamedItemsSection } from './NamedItemsSection.js';

const FORM_FIELDS = ['name', 'description', 'body'] as const;

/**
 * Create or edit a template: name, description and the text of its first item (the entry for every
 * channel). Other parts saved from the composer (thread items, channels' own texts, media) are kept.
 */
function TemplateForm({ template, onSaved, onCancel }: { template?: PostTemplate; onSaved: () => void; onCancel: () => void }) {
  const entry = template ? sharedEntry(template.body) : undefined;
  const [name, setName] = useState(template?.name ?? '');
  const [description, setDescription] = useState(template?.description ?? '');
  const [text, setText] = useState(entry?.value[0]?.content ?? '');
  const found = placeholdersIn([text]);

  const { save, submit } = useFormSave(async () => {
    const posts = template
      ? template.body.posts.map((p) => (p === entry ? { ...p, value: [{ ...p.value[0]!, content: text }, ...p.value.slice(1)] } : p))
      : [{ value: [{ content: text }] }];
    const body = { name: name.trim(), description: description.trim(), body: { ...(template?.body ?? {}), posts } };
    if (template) return unwrap(api.PUT('/templates/{id}', { params: { path: { id: template.id } }, body }));
    return unwrap(api.POST('/templates', { body }));
  }, onSaved);

  return (
    <form className="template-form" onSubmit={submit} noValidate>
      <Field label="Name" error={fieldError(save.error, 'name')}>
        {(p) => <TextInput {...p} value={name} maxLength={100} required autoComplete="off" placeholder="e.g. Product launch" onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description" hint="Optional: what the template is for." error={fieldError(save.error, 'description')}>
        {(p) => <TextInput {...p} value={description} maxLength={1000} autoComplete="off" onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <Field
        label="Text"
        hint={found.length > 0 ? `Placeholders: ${found.map((n) => `{{${n}}}`).join(', ')}` : 'Write {{name}} where a value is filled in when the template is used (letters, digits and _).'}
        error={fieldError(save.error, 'body')}
      >
        {(p) => <textarea {...p} className="input template-text" rows={6} value={text} onChange={(e) => setText(e.target.value)} />}
      </Field>
      {template && (template.body.posts.length > 1 || (entry?.value.length ?? 0) > 1) ? <p className="hint">Thread items and channels’ own texts saved with this template are kept.</p> : null}
      <FormFooter error={save.error} fields={FORM_FIELDS} pending={save.isPending} onCancel={onCancel} submitLabel={template ? 'Save changes' : 'Create template'} />
    </form>
  );
}

/** The organisation's post templates: list, create, edit, delete (used from the composer's Templates button). */
export function TemplatesSettings() {
  const queryClient = useQueryClient();
  const templates = useTemplates();

  return (
    <NamedItemsSection
      title="Templates"
      description="Saved posts the whole organisation can start from in the composer (Templates button) or through the API. A {{placeholder}} in the text is asked for when the template is used."
      noun="template"
      plural="templates"
      query={templates}
      empty={<p>Create one here, or use “Save as template” in the composer.</p>}
      details={(t) => (
        <>
          {t.description ? <p className="hint">{t.description}</p> : null}
          <p className="template-preview">{sharedEntry(t.body).value[0]?.content}</p>
          {t.placeholders.length > 0 ? (
            <p className="template-placeholders">
              <span className="muted">Placeholders:</span>{' '}
              {t.placeholders.map((p) => (
                <code key={p} className="chip">{`{{${p}}}`}</code>
              ))}
            </p>
          ) : null}
        </>
      )}
      deleteNote={<p>Posts made from it stay as they are.</p>}
      onDelete={(t) => unwrap(api.DELETE('/templates/{id}', { params: { path: { id: t.id } } }))}
      onChanged={() => queryClient.invalidateQueries({ queryKey: templateKeys.templates })}
      form={({ item, onCancel, onSaved }) => <TemplateForm template={item} onCancel={onCancel} onSaved={onSaved} />}
    />
  );
}
