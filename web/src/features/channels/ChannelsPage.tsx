import * as Menu from '@radix-ui/react-dropdown-menu';
import { useQueryClient } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { Link } from 'react-router';
import { queryKeys, useGroups, useIntegrations, type Group, type Integration } from '../../api/queries.js';
import { useTimeZone } from '../../api/session.js';
import { Button, EmptyState, ErrorNotice, Notice, PageHeader, Spinner } from '../../components/ui.js';
import { platformName } from '../../lib/platforms.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { ChannelGroupDialog, ChooseAccountDialog, PostingTimesDialog, RemoveChannelDialog, RenameChannelDialog } from './ChannelDialogs.js';
import { ConnectDialog } from './ConnectDialog.js';
import { ACCOUNT_TOOLS, useConnectMessages } from './connect.js';
import { DeleteGroupDialog, GroupNameDialog } from './GroupDialogs.js';
import { useUpdateChannel } from './mutations.js';
import { ChannelAvatar } from './PlatformMark.js';
import { useConnectSandbox } from '../sandbox/queries.js';
import { SandboxBadge } from '../sandbox/TrySandbox.js';
import { orderSlots, slotInstant, slotToZoneTime } from './postingTimes.js';
import './channels.css';

type ChannelDialog = 'rename' | 'group' | 'remove' | 'times' | 'account' | 'reconnect';
type Dialog =
  | { kind: 'connect' }
  | { kind: ChannelDialog; channel: Integration }
  | { kind: 'new-group' }
  | { kind: 'rename-group'; group: Group }
  | { kind: 'delete-group'; group: Group; channelCount: number };

interface Section {
  group: Group | null;
  channels: Integration[];
}

/** Channels by client group (groups by name, then the channels without one), each by name. */
function sections(channels: Integration[], groups: Group[]): Section[] {
  const byGroup = new Map<string, Section>();
  for (const g of groups) byGroup.set(g.id, { group: g, channels: [] });
  const ungrouped: Section = { group: null, channels: [] };
  for (const c of channels) {
    if (!c.customer) {
      ungrouped.channels.push(c);
      continue;
    }
    let s = byGroup.get(c.customer.id);
    if (!s) byGroup.set(c.customer.id, (s = { group: c.customer, channels: [] }));
    s.channels.push(c);
  }
  const byName = (a: Integration, b: Integration) => a.name.localeCompare(b.name) || a.identifier.localeCompare(b.identifier);
  const out = [...byGroup.values()].sort((a, b) => a.group!.name.localeCompare(b.group!.name));
  for (const s of out) s.channels.sort(byName);
  ungrouped.channels.sort(byName);
  return ungrouped.channels.length > 0 || out.length === 0 ? [...out, ungrouped] : out;
}

/** The organisation's channels (issue 16, "Channels"): connect, reconnect, group, schedule and remove them. */
export default function ChannelsPage() {
  const channels = useIntegrations();
  const groups = useGroups();
  const queryClient = useQueryClient();
  const timeZone = useTimeZone();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const close = () => setDialog(null);

  // A connection finished in a popup or another tab: the list is read again, even with no dialog open.
  useConnectMessages(() => void queryClient.invalidateQueries({ queryKey: queryKeys.integrations }));

  const list = useMemo(() => (channels.data && groups.data ? sections(channels.data, groups.data) : []), [channels.data, groups.data]);
  const needReconnect = channels.data?.filter((c) => c.refreshNeeded) ?? [];

  return (
    <div className="channels-page">
      <PageHeader
        title="Channels"
        actions={
          <>
            <Button variant="secondary" onClick={() => setDialog({ kind: 'new-group' })}>
              New client group
            </Button>
            <Button onClick={() => setDialog({ kind: 'connect' })}>Connect a channel</Button>
          </>
        }
      >
        <p className="hint ch-subtitle">
          {channels.data ? `${channels.data.length} ${channels.data.length === 1 ? 'channel' : 'channels'} · ` : ''}times shown in {timeZone}
        </p>
      </PageHeader>

      {needReconnect.length > 0 ? (
        <Notice kind="bad">
          {needReconnect.length === 1 ? `${needReconnect[0]!.name} needs` : `${needReconnect.length} channels need`} reconnecting before {needReconnect.length === 1 ? 'it' : 'they'} can publish
          again.
        </Notice>
      ) : null}

      {channels.isPending || groups.isPending ? (
        <p className="ch-loading">
          <Spinner label="Loading channels" /> Loading channels…
        </p>
      ) : channels.error || groups.error ? (
        <div>
          <ErrorNotice error={channels.error ?? groups.error} />
          <Button
            variant="secondary"
            onClick={() => {
              void channels.refetch();
              void groups.refetch();
            }}
          >
            Try again
          </Button>
        </div>
      ) : channels.data?.length === 0 && groups.data?.length === 0 ? (
        <EmptyState title="No channels yet">
          <p>Connect the accounts Tidings should publish to: Bluesky, Mastodon, Telegram, LinkedIn and 30 more.</p>
          <Button onClick={() => setDialog({ kind: 'connect' })}>Connect a channel</Button>
        </EmptyState>
      ) : (
        list.map((s) => (
          <GroupSection
            key={s.group?.id ?? 'none'}
            section={s}
            only={list.length === 1 && !s.group}
            onDialog={setDialog}
            onRenameGroup={(group) => setDialog({ kind: 'rename-group', group })}
            onDeleteGroup={(group) => setDialog({ kind: 'delete-group', group, channelCount: s.channels.length })}
          />
        ))
      )}

      <ConnectDialog open={dialog?.kind === 'connect'} onOpenChange={(o) => (o ? setDialog({ kind: 'connect' }) : close())} />
      {dialog?.kind === 'reconnect' ? <ConnectDialog open reconnect={dialog.channel} onOpenChange={(o) => !o && close()} /> : null}
      {dialog?.kind === 'rename' ? <RenameChannelDialog channel={dialog.channel} onClose={close} /> : null}
      {dialog?.kind === 'group' ? <ChannelGroupDialog channel={dialog.channel} onClose={close} /> : null}
      {dialog?.kind === 'remove' ? <RemoveChannelDialog channel={dialog.channel} onClose={close} /> : null}
      {dialog?.kind === 'times' ? <PostingTimesDialog channel={dialog.channel} onClose={close} /> : null}
      {dialog?.kind === 'account' ? <ChooseAccountDialog channel={dialog.channel} onClose={close} /> : null}
      {dialog?.kind === 'new-group' ? <GroupNameDialog onClose={close} /> : null}
      {dialog?.kind === 'rename-group' ? <GroupNameDialog group={dialog.group} onClose={close} /> : null}
      {dialog?.kind === 'delete-group' ? <DeleteGroupDialog group={dialog.group} channelCount={dialog.channelCount} onClose={close} /> : null}
    </div>
  );
}

function GroupSection({
  section,
  only,
  onDialog,
  onRenameGroup,
  onDeleteGroup,
}: {
  section: Section;
  only: boolean;
  onDialog: (d: Dialog) => void;
  onRenameGroup: (g: Group) => void;
  onDeleteGroup: (g: Group) => void;
}) {
  const { group, channels } = section;
  const title = group ? group.name : only ? 'All channels' : 'Without a client group';
  const headingId = `ch-group-${group?.id ?? 'none'}`;
  return (
    <section className="ch-group card" aria-labelledby={headingId}>
      <header className="ch-group-head">
        <div>
          <h2 id={headingId}>{title}</h2>
          <span className="hint">
            {group ? 'Client group · ' : ''}
            {channels.length} {channels.length === 1 ? 'channel' : 'channels'}
          </span>
        </div>
        {group ? (
          <div className="ch-group-actions">
            <Button variant="ghost" onClick={() => onRenameGroup(group)} aria-label={`Rename group ${group.name}`}>
              Rename
            </Button>
            <Button variant="ghost" className="ch-danger-text" onClick={() => onDeleteGroup(group)} aria-label={`Delete group ${group.name}`}>
              Delete
            </Button>
          </div>
        ) : null}
      </header>
      {channels.length === 0 ? (
        <p className="hint ch-group-empty">No channels in this group yet: choose “Client group…” in a channel’s menu to add one.</p>
      ) : (
        <ul className="ch-list">
          {channels.map((c) => (
            <ChannelRow key={c.id} channel={c} onDialog={onDialog} />
          ))}
        </ul>
      )}
    </section>
  );
}

function ChannelState({ channel }: { channel: Integration }) {
  return (
    <span className="ch-states">
      {channel.refreshNeeded ? <span className="badge ch-state-reconnect">Needs reconnecting</span> : null}
      {channel.disabled ? <span className="badge ch-state-disabled">Disabled</span> : null}
      {!channel.refreshNeeded && !channel.disabled ? <span className="badge ch-state-active">Active</span> : null}
    </span>
  );
}

function ChannelRow({ channel, onDialog }: { channel: Integration; onDialog: (d: Dialog) => void }) {
  const timeZone = useTimeZone();
  const update = useUpdateChannel();
  const slots = orderSlots(
    channel.postingTimes.map((t) => t.time),
    timeZone,
  );
  const account = ACCOUNT_TOOLS[channel.identifier];
  const sandboxReconnect = useConnectSandbox();
  // a sandbox channel reconnects inside Tidings (after a "revoked" fault), with no platform to visit
  const open = (kind: ChannelDialog) =>
    kind === 'reconnect' && channel.sandbox ? sandboxReconnect.mutate({ identifier: channel.identifier, refresh: channel.id }) : onDialog({ kind, channel });
  const toggle = () => update.mutate({ id: channel.id, body: { disabled: !channel.disabled } });
  const ids = useId();

  return (
    <li className={`ch-row${channel.disabled ? ' is-disabled' : ''}`} data-channel={channel.id}>
      <ChannelAvatar picture={channel.picture} identifier={channel.identifier} name={channel.name} sandbox={channel.sandbox} />
      <div className="ch-who">
        <span className="ch-name" id={`${ids}-name`}>
          {channel.name}
        </span>
        {channel.sandbox ? <SandboxBadge /> : null}
        <span className="ch-meta">
          {platformName(channel.identifier)}
          {channel.profile ? <> · {channel.profile}</> : null}
          {channel.sandbox ? (
            <>
              {' · '}
              <Link to={`/channels/${encodeURIComponent(channel.id)}/sandbox`}>Sandbox feed</Link>
            </>
          ) : null}
        </span>
      </div>
      <ChannelState channel={channel} />
      <div className="ch-times">
        {slots.length === 0 ? (
          <span className="hint">No posting times</span>
        ) : (
          <ul aria-label={`Posting times of ${channel.name}`}>
            {slots.map((s) => (
              <li key={s}>
                <time title={utcTitle(slotInstant(s))}>{slotToZoneTime(s, timeZone)}</time>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="ch-created hint">
        Added <time dateTime={channel.createdAt} title={utcTitle(channel.createdAt)}>{formatDateTime(channel.createdAt, timeZone, { dateStyle: 'medium' })}</time>
      </div>
      <div className="ch-row-actions">
        {channel.refreshNeeded ? <Button onClick={() => open('reconnect')}>Reconnect</Button> : null}
        <Menu.Root modal={false}>
          <Menu.Trigger asChild>
            {/* named "Manage Acme News": it starts with the visible word, so voice control finds it */}
            <button type="button" className="btn btn-secondary ch-menu-button" aria-labelledby={`${ids}-manage ${ids}-name`}>
              <span id={`${ids}-manage`}>Manage</span> <span aria-hidden="true">▾</span>
            </button>
          </Menu.Trigger>
          <Menu.Portal>
            <Menu.Content className="ch-menu" align="end" sideOffset={4}>
              <Menu.Item className="ch-menu-item" onSelect={() => open('rename')}>
                Rename…
              </Menu.Item>
              <Menu.Item className="ch-menu-item" onSelect={() => open('group')}>
                Client group…
              </Menu.Item>
              <Menu.Item className="ch-menu-item" onSelect={() => open('times')}>
                Posting times…
              </Menu.Item>
              {account ? (
                <Menu.Item className="ch-menu-item" onSelect={() => open('account')}>
                  Choose the {account.noun}…
                </Menu.Item>
              ) : null}
              <Menu.Item className="ch-menu-item" onSelect={() => open('reconnect')}>
                Reconnect…
              </Menu.Item>
              <Menu.Separator className="ch-menu-sep" />
              <Menu.Item className="ch-menu-item" onSelect={toggle}>
                {channel.disabled ? 'Enable' : 'Disable'}
              </Menu.Item>
              <Menu.Item className="ch-menu-item ch-danger-text" onSelect={() => open('remove')}>
                Remove…
              </Menu.Item>
            </Menu.Content>
          </Menu.Portal>
        </Menu.Root>
      </div>
      {update.error ? (
        <div className="ch-row-error">
          <ErrorNotice error={update.error} />
        </div>
      ) : null}
    </li>
  );
}
