import { useState, type ReactNode } from 'react';
import { Button, EmptyState, Modal, Spinner } from '../../components/ui.js';
import { ConfirmButton, LoadError, Section } from './common.js';

interface NamedItem {
  id: string;
  name: string;
}

/**
 * A settings section listing an organisation's named items (templates, signatures) as cards with
 * Edit and Delete, a "New …" button, and the create/edit form in a dialog. `noun` is the item's
 * kind in the singular ("template"), `plural` in the plural; the caller supplies the card's extra
 * content, the delete call and the form.
 */
export function NamedItemsSection<T extends NamedItem>({
  title,
  description,
  noun,
  plural,
  query,
  empty,
  badge,
  details,
  deleteNote,
  onDelete,
  onChanged,
  form,
}: {
  title: string;
  description: ReactNode;
  noun: string;
  plural: string;
  query: { isPending: boolean; error: unknown; data: T[] | undefined };
  empty?: ReactNode;
  badge?: (item: T) => ReactNode;
  details: (item: T) => ReactNode;
  deleteNote: ReactNode;
  onDelete: (item: T) => Promise<unknown>;
  /** Refetches the list after a save or a delete. */
  onChanged: () => Promise<unknown>;
  form: (props: { item: T | undefined; onCancel: () => void; onSaved: () => void }) => ReactNode;
}) {
  const [editing, setEditing] = useState<T | 'new' | null>(null);

  return (
    <Section title={title} description={description} actions={<Button onClick={() => setEditing('new')}>New {noun}</Button>}>
      {query.isPending ? (
        <Spinner label={`Loading ${plural}`} />
      ) : query.error ? (
        <LoadError error={query.error} what={plural} />
      ) : !query.data || query.data.length === 0 ? (
        <EmptyState title={`No ${plural} yet`}>{empty}</EmptyState>
      ) : (
        <ul className="template-list">
          {query.data.map((item) => (
            <li key={item.id} className="card template-card">
              <div className="template-head">
                <h3>{item.name}</h3>
                {badge?.(item)}
                <div className="template-actions">
                  <Button variant="secondary" onClick={() => setEditing(item)} aria-label={`Edit ${item.name}`}>
                    Edit
                  </Button>
                  <ConfirmButton
                    label="Delete"
                    ariaLabel={`Delete ${item.name}`}
                    title={`Delete “${item.name}”?`}
                    confirmLabel={`Delete ${noun}`}
                    onConfirm={async () => {
                      await onDelete(item);
                      await onChanged();
                    }}
                  >
                    {deleteNote}
                  </ConfirmButton>
                </div>
              </div>
              {details(item)}
            </li>
          ))}
        </ul>
      )}
      <Modal open={editing !== null} onOpenChange={(o) => (o ? undefined : setEditing(null))} title={editing === 'new' ? `New ${noun}` : editing ? `Edit “${editing.name}”` : ''} wide>
        {editing !== null
          ? form({
              item: editing === 'new' ? undefined : editing,
              onCancel: () => setEditing(null),
              onSaved: () => {
                setEditing(null);
                void onChanged();
              },
            })
          : null}
      </Modal>
    </Section>
  );
}
