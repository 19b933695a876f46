import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client.js';
import { Button, EmptyState, ErrorNotice, Field, Modal, Spinner, TextInput } from '../../components/ui.js';
import { placeholdersIn, sharedEntry, templateKeys, useTemplates, type PostTemplate } from '../compose/templates.js';
import { ConfirmButton, LoadError, Section } from './common.js';
import { fieldError, onlyFieldErrors } from './errors.js';

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

  const save = useMutation({
    mutationFn: async () => {
      const posts = template
        ? template.body.posts.map((p) => (p === entry ? { ...p, value: [{ ...p.value[0]!, content: text }, ...p.value.slice(1)] } : p))
        : [{ value: [{ content: text }] }];
      const body = { name: name.trim(), description: description.trim(), body: { ...(template?.body ?? {}), posts } };
      if (template) return unwrap(api.PUT('/templates/{id}', { params: { path: { id: template.id } }, body }));
      return unwrap(api.POST('/templates', { body }));
    },
    onSuccess: onSaved,
  });

  function submit(e: FormEvent) {
    e.preventDefault();
    save.mutate();
  }

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
      {save.error && !onlyFieldErrors(save.error, FORM_FIELDS) ? <ErrorNotice error={save.error} /> : null}
      <div className="dialog-actions">
        <Button variant="ghost" onClick={onCancel} disabled={save.isPending}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : template ? 'Save changes' : 'Create template'}
        </Button>
      </div>
    </form>
  );
}

/** The organisation's post templates: list, create, edit, delete (used from the composer's Templates button). */
export function TemplatesSettings() {
  const queryClient = useQueryClient();
  const templates = useTemplates();
  const [editing, setEditing] = useState<PostTemplate | 'new' | null>(null);
  const invalidate = () => queryClient.invalidateQueries({ queryKey: templateKeys.templates });

  return (
    <Section
      title="Templates"
      description="Saved posts the whole organisation can start from in the composer (Templates button) or through the API. A {{placeholder}} in the text is asked for when the template is used."
      actions={<Button onClick={() => setEditing('new')}>New template</Button>}
    >
      {templates.isPending ? (
        <Spinner label="Loading templates" />
      ) : templates.error ? (
        <LoadError error={templates.error} what="templates" />
      ) : templates.data.length === 0 ? (
        <EmptyState title="No templates yet">
          <p>Create one here, or use “Save as template” in the composer.</p>
        </EmptyState>
      ) : (
        <ul className="template-list">
          {templates.data.map((t) => (
            <li key={t.id} className="card template-card">
              <div className="template-head">
                <h3>{t.name}</h3>
                <div className="template-actions">
                  <Button variant="secondary" onClick={() => setEditing(t)} aria-label={`Edit ${t.name}`}>
                    Edit
                  </Button>
                  <ConfirmButton
                    label="Delete"
                    ariaLabel={`Delete ${t.name}`}
                    title={`Delete “${t.name}”?`}
                    confirmLabel="Delete template"
                    onConfirm={async () => {
                      await unwrap(api.DELETE('/templates/{id}', { params: { path: { id: t.id } } }));
                      await invalidate();
                    }}
                  >
                    <p>Posts made from it stay as they are.</p>
                  </ConfirmButton>
                </div>
              </div>
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
            </li>
          ))}
        </ul>
      )}
      <Modal open={editing !== null} onOpenChange={(o) => (o ? undefined : setEditing(null))} title={editing === 'new' ? 'New template' : editing ? `Edit “${editing.name}”` : ''} wide>
        {editing !== null ? (
          <TemplateForm
            template={editing === 'new' ? undefined : editing}
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
