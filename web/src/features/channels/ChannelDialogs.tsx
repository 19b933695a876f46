import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { api, unwrap } from '../../api/client.js';
import { queryKeys, useGroups, type Integration } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Field, Modal, Notice, Spinner, TextInput } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { utcTitle } from '../../lib/time.js';
import { ACCOUNT_TOOLS, accountChoices } from './connect.js';
import { fieldMessage, otherError, useGroupMutations, useRemoveChannel, useUpdateChannel } from './mutations.js';
import { orderSlots, slotInstant, slotToZoneTime, utcTimeOfSlot, zoneTimeToSlot } from './postingTimes.js';

interface ChannelDialogProps {
  channel: Integration;
  onClose: () => void;
}

function Actions({ children }: { children: ReactNode }) {
  return <div className="ch-dialog-actions">{children}</div>;
}

function Cancel({ onClose }: { onClose: () => void }) {
  return (
    <Button variant="secondary" onClick={onClose}>
      Cancel
    </Button>
  );
}

/** Rename a channel (the name shown in Tidings; the account on the platform keeps its own). */
export function RenameChannelDialog({ channel, onClose }: ChannelDialogProps) {
  const update = useUpdateChannel();
  const [name, setName] = useState(channel.name);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.mutate({ id: channel.id, body: { name } }, { onSuccess: onClose });
  };
  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`Rename ${channel.name}`} description="The name Tidings shows for this channel; nothing changes on the platform.">
      <form onSubmit={submit} noValidate>
        <ErrorNotice error={otherError(update.error, ['name'])} />
        <Field label="Channel name" error={fieldMessage(update.error, 'name')}>
          {(p) => <TextInput {...p} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} autoFocus />}
        </Field>
        <Actions>
          <Cancel onClose={onClose} />
          <Button type="submit" disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save'}
          </Button>
        </Actions>
      </form>
    </Modal>
  );
}

const NEW_GROUP = '__new__';

/** Put a channel in a client group (or take it out), creating the group on the way if needed. */
export function ChannelGroupDialog({ channel, onClose }: ChannelDialogProps) {
  const groups = useGroups();
  const update = useUpdateChannel();
  const { create } = useGroupMutations();
  const [choice, setChoice] = useState(channel.customer?.id ?? '');
  const [newName, setNewName] = useState('');
  const busy = update.isPending || create.isPending;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      const customer = choice === NEW_GROUP ? (await create.mutateAsync(newName)).id : choice || null;
      await update.mutateAsync({ id: channel.id, body: { customer } });
      onClose();
    } catch {
      // shown from the mutations' state
    }
  };

  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`Client group of ${channel.name}`} description="Client groups bundle the channels of one customer; the calendar can show one group at a time.">
      {groups.isPending ? <Spinner /> : null}
      <ErrorNotice error={groups.error} />
      {groups.data ? (
        <form onSubmit={(e) => void submit(e)} noValidate>
          <ErrorNotice error={otherError(update.error, ['customer'])} />
          <ErrorNotice error={otherError(create.error, ['name'])} />
          <Field label="Client group" error={fieldMessage(update.error, 'customer')}>
            {(p) => (
              <select {...p} value={choice} onChange={(e) => setChoice(e.target.value)}>
                <option value="">No client group</option>
                {groups.data.map((g) => (
                  <option key={g.id} value={g.id}>
                    {g.name}
                  </option>
                ))}
                <option value={NEW_GROUP}>New client group…</option>
              </select>
            )}
          </Field>
          {choice === NEW_GROUP ? (
            <Field label="Name of the new group" error={fieldMessage(create.error, 'name')}>
              {(p) => <TextInput {...p} value={newName} onChange={(e) => setNewName(e.target.value)} autoFocus />}
            </Field>
          ) : null}
          <Actions>
            <Cancel onClose={onClose} />
            <Button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </Button>
          </Actions>
        </form>
      ) : null}
    </Modal>
  );
}

/** Remove (disconnect) a channel, saying what happens to its posts (API.md §5). */
export function RemoveChannelDialog({ channel, onClose }: ChannelDialogProps) {
  const remove = useRemoveChannel();
  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`Remove ${channel.name}?`}>
      <div className="ch-confirm">
        <p>
          Tidings disconnects this {platformName(channel.identifier)} channel{channel.profile ? ` (${channel.profile})` : ''} and deletes the sign-in it stored for it.
        </p>
        <p>
          <strong>Posts queued on it will not be published:</strong> they end with the state Error, “channel disconnected”, so you can see which ones they were. Published posts, drafts and
          failed posts stay as they are. Nothing is deleted on {platformName(channel.identifier)}.
        </p>
      </div>
      <ErrorNotice error={remove.error} />
      <Actions>
        <Cancel onClose={onClose} />
        <Button variant="danger" disabled={remove.isPending} onClick={() => remove.mutate(channel.id, { onSuccess: onClose })}>
          {remove.isPending ? 'Removing…' : 'Remove channel'}
        </Button>
      </Actions>
    </Modal>
  );
}

/** The channel's posting time slots, shown and typed in the person's zone, saved in UTC minutes. */
export function PostingTimesDialog({ channel, onClose }: ChannelDialogProps) {
  const timeZone = useTimeZone();
  const update = useUpdateChannel();
  const [slots, setSlots] = useState(() => orderSlots(channel.postingTimes.map((t) => t.time), timeZone));
  const [time, setTime] = useState('09:00');
  const [addError, setAddError] = useState<string>();
  const timeId = useId();

  const add = () => {
    if (!/^\d{2}:\d{2}$/.test(time)) return setAddError('Enter a time, e.g. 09:30');
    const slot = zoneTimeToSlot(time, timeZone);
    if (slots.includes(slot)) return setAddError(`${time} is already a posting time`);
    setAddError(undefined);
    setSlots(orderSlots([...slots, slot], timeZone));
  };
  const save = () => update.mutate({ id: channel.id, body: { postingTimes: slots.map((t) => ({ time: t })) } }, { onSuccess: onClose });

  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`Posting times of ${channel.name}`} description="“Next free slot” in the composer picks the first of these times not yet taken.">
      <p className="hint">
        Times in {timeZone}. Tidings keeps them in UTC, so where daylight saving changes they move by an hour on your clock; hover a time for its UTC value.
      </p>
      {slots.length === 0 ? <p className="ch-times-empty">No posting times yet: the next free slot uses Tidings’ default times.</p> : null}
      <ul className="ch-slots" aria-label="Posting times">
        {slots.map((s) => {
          const local = slotToZoneTime(s, timeZone);
          return (
            <li key={s} className="ch-slot">
              <time title={utcTitle(slotInstant(s))}>{local}</time>
              <span className="hint">{utcTimeOfSlot(s)} UTC</span>
              <button type="button" className="btn btn-ghost ch-slot-remove" aria-label={`Remove ${local}`} onClick={() => setSlots(slots.filter((x) => x !== s))}>
                ×
              </button>
            </li>
          );
        })}
      </ul>
      <div className="ch-slot-add">
        <Field label="Add a time" id={timeId} error={addError}>
          {(p) => (
            <TextInput
              {...p}
              type="time"
              value={time}
              onChange={(e) => setTime(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  add();
                }
              }}
            />
          )}
        </Field>
        <Button variant="secondary" onClick={add}>
          Add
        </Button>
      </div>
      {fieldMessage(update.error, 'postingTimes') ? <Notice kind="bad">{fieldMessage(update.error, 'postingTimes')}</Notice> : <ErrorNotice error={update.error} />}
      <Actions>
        <Cancel onClose={onClose} />
        <Button onClick={save} disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save posting times'}
        </Button>
      </Actions>
    </Modal>
  );
}

/** Which page/account a channel posts as, where one connection reaches several (PUT /integrations/{id}/account). */
export function ChooseAccountDialog({ channel, onClose }: ChannelDialogProps) {
  const tool = ACCOUNT_TOOLS[channel.identifier];
  const queryClient = useQueryClient();
  const noun = tool?.noun ?? 'account';
  const choices = useQuery({
    queryKey: ['integration-accounts', channel.id],
    queryFn: async () => accountChoices((await unwrap(api.POST('/integration-trigger/{id}', { params: { path: { id: channel.id } }, body: { methodName: tool!.methodName } }))).output),
    enabled: Boolean(tool),
    staleTime: 0,
  });
  const [picked, setPicked] = useState<string>();
  const current = choices.data?.find((c) => c.current)?.id;
  const selected = picked ?? current;
  const save = useMutation({
    mutationFn: (id: string) => unwrap(api.PUT('/integrations/{id}/account', { params: { path: { id: channel.id } }, body: { id } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.integrations });
      onClose();
    },
  });
  const groupName = useId();

  return (
    <Modal open onOpenChange={(o) => !o && onClose()} title={`Choose the ${noun}`} description={`The ${noun} ${channel.name} posts as, among those your ${platformName(channel.identifier)} sign-in reaches.`}>
      {choices.isPending && tool ? (
        <p className="ch-flow-status">
          <Spinner /> Asking {platformName(channel.identifier)}…
        </p>
      ) : null}
      <ErrorNotice error={choices.error} />
      {choices.data && choices.data.length === 0 ? <Notice>{platformName(channel.identifier)} lists no other {noun} for this sign-in.</Notice> : null}
      {choices.data && choices.data.length > 0 ? (
        <fieldset className="ch-accounts">
          <legend className="visually-hidden">{`Choose the ${noun}`}</legend>
          {choices.data.map((c) => (
            <label key={c.id} className={`ch-account${selected === c.id ? ' selected' : ''}`}>
              <input type="radio" name={groupName} value={c.id} checked={selected === c.id} onChange={() => setPicked(c.id)} />
              {c.picture ? <img src={c.picture} alt="" width={32} height={32} referrerPolicy="no-referrer" /> : null}
              <span>
                <strong>{c.name}</strong>
                {c.detail ? <span className="hint"> {c.detail}</span> : null}
                {c.current ? <span className="badge ch-badge-current">current</span> : null}
              </span>
            </label>
          ))}
        </fieldset>
      ) : null}
      {fieldMessage(save.error, 'id') ? <Notice kind="bad">{fieldMessage(save.error, 'id')}</Notice> : <ErrorNotice error={save.error} />}
      <Actions>
        <Cancel onClose={onClose} />
        <Button disabled={!selected || selected === current || save.isPending} onClick={() => selected && save.mutate(selected)}>
          {save.isPending ? 'Switching…' : `Post as this ${noun}`}
        </Button>
      </Actions>
    </Modal>
  );
}
