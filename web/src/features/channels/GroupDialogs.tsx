import { useState, type FormEvent } from 'react';
import type { Group } from '../../api/queries.js';
import { Button, ErrorNotice, Field, Modal, TextInput } from '../../components/ui.js';
import { fieldMessage, otherError, useGroupMutations } from './mutations.js';

/** Create a client group, or rename one (`group`). */
export function GroupNameDialog({ group, onClose }: { group?: Group; onClose: () => void }) {
  const { create, rename } = useGroupMutations();
  const mutation = group ? rename : create;
  const [name, setName] = useState(group?.name ?? '');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (group) rename.mutate({ id: group.id, name }, { onSuccess: onClose });
    else create.mutate(name, { onSuccess: onClose });
  };
  return (
    <Modal
      open
      onOpenChange={(o) => !o && onClose()}
      title={group ? `Rename ${group.name}` : 'New client group'}
      description={group ? undefined : 'A client group bundles the channels of one customer; the calendar can show one group at a time.'}
    >
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={otherError(mutation.error, ['name'])} />
        <Field label="Group name" error={fieldMessage(mutation.error, 'name')}>
          {(p) => <TextInput {...p} value={name} onChange={(e) => setName(e.target.value)} autoFocus placeholder="e.g. Acme Bakery" />}
        </Field>
        <div className="ch-dialog-actions">
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" disabled={mutation.isPending}>
            {mutation.isPending ? 'Saving…' : group ? 'Save' : 'Create group'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

/** Delete a client group: its channels stay connected, without a group. */
export function DeleteGroupDialog({ group, channelCount, onClose }: { group: Group; channelCount: number; onClose: () => void }) {
  const { remove } = useGroupMutations();
  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`Delete the group ${group.name}?`}>
      <p>
        {channelCount === 0
          ? 'The group has no channels.'
          : `Its ${channelCount === 1 ? 'channel stays' : `${channelCount} channels stay`} connected, with ${channelCount === 1 ? 'its' : 'their'} posts, and without a client group.`}
      </p>
      <ErrorNotice error={remove.error} />
      <div className="ch-dialog-actions">
        <Button variant="secondary" onClick={onClose}>
          Cancel
        </Button>
        <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(group.id, { onSuccess: onClose })}>
          {remove.isPending ? 'Deleting…' : 'Delete group'}
        </Button>
      </div>
    </Modal>
  );
}
