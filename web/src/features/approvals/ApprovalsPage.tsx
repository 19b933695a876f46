import { useState } from 'react';
import { Link } from 'react-router';
import { useTimeZone } from '../../api/session.js';
import { EmptyState, ErrorNotice, Notice, PageHeader, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { firstLine } from '../calendar/calendarModel.js';
import { ChannelAvatar } from '../channels/PlatformMark.js';
import { ApprovalActions } from './ApprovalActions.js';
import { useApprovalQueue } from './queries.js';
import { STATUS_LABEL, type ApprovalGroup } from './types.js';
import './approvals.css';

/** Pending first (they wait for a decision), then those sent back; the soonest first within each. */
export function queueOrder(groups: readonly ApprovalGroup[]): ApprovalGroup[] {
  const rank = (g: ApprovalGroup) => (g.status === 'pending_approval' ? 0 : g.status === 'changes_requested' ? 1 : 2);
  return [...groups].sort((a, b) => rank(a) - rank(b) || Date.parse(a.publishDate) - Date.parse(b.publishDate));
}

function Time({ iso, tz }: { iso: string; tz: string }) {
  return (
    <time dateTime={iso} title={utcTitle(iso)}>
      {formatDateTime(iso, tz)}
    </time>
  );
}

function GroupCard({ group, tz, onDecided }: { group: ApprovalGroup; tz: string; onDecided: (text: string) => void }) {
  const first = group.posts[0];
  const names = group.posts.map((p) => p.integration.name).join(', ');
  const text = group.posts.map((p) => firstLine(p.content, 200)).find(Boolean) ?? '';
  return (
    <li className="card approval-card" aria-label={`${STATUS_LABEL[group.status]}: ${names}`}>
      <div className="approval-card-head">
        <ul className="approval-channels" aria-label="Channels">
          {group.posts.map((p) => (
            <li key={p.id} title={p.integration.name}>
              <ChannelAvatar picture={p.integration.picture} identifier={p.integration.identifier} name={p.integration.name} size={28} />
              <span className="visually-hidden">{p.integration.name}</span>
            </li>
          ))}
        </ul>
        <span className="approval-card-names">{names}</span>
        <span className={`badge approval-${group.status}`}>{STATUS_LABEL[group.status]}</span>
      </div>
      <p className="approval-excerpt">{text || <em>No text</em>}</p>
      <dl className="approval-facts">
        <dt>Publishes</dt>
        <dd>
          <Time iso={group.publishDate} tz={tz} />
        </dd>
        {group.rule ? (
          <>
            <dt>Rule</dt>
            <dd>{group.rule.name}</dd>
          </>
        ) : null}
        {group.requestedBy ? (
          <>
            <dt>Requested by</dt>
            <dd>
              {group.requestedBy}
              {group.requestedAt ? (
                <span className="hint">
                  {' '}
                  · <Time iso={group.requestedAt} tz={tz} />
                </span>
              ) : null}
            </dd>
          </>
        ) : null}
        {group.status === 'changes_requested' && group.decidedBy ? (
          <>
            <dt>Sent back by</dt>
            <dd>{group.decidedBy}</dd>
          </>
        ) : null}
      </dl>
      <div className="approval-card-foot">
        {first ? (
          <Link className="btn btn-secondary" to={`/posts/${encodeURIComponent(first.id)}`}>
            Open<span className="visually-hidden"> the post on {names}</span>
          </Link>
        ) : null}
        {group.canApprove && group.status === 'pending_approval' ? (
          <ApprovalActions group={group.group} label={`the post on ${names}`} onDone={(what) => onDecided(what === 'approved' ? `Approved: the post on ${names} is queued.` : `Changes requested on the post on ${names}.`)} />
        ) : group.status === 'changes_requested' ? (
          <span className="hint">Waiting for its author’s changes.</span>
        ) : !group.canApprove ? (
          <span className="hint">Waiting for an approver.</span>
        ) : null}
      </div>
    </li>
  );
}

/** The approval queue (issue 31): posts waiting for a decision, then those sent back for changes. */
export default function ApprovalsPage() {
  const tz = useTimeZone();
  const queue = useApprovalQueue();
  const [done, setDone] = useState<string>();
  const groups = queueOrder(queue.data ?? []);
  const pending = groups.filter((g) => g.status === 'pending_approval').length;

  return (
    <>
      <PageHeader title="Approvals">
        <p className="hint">Posts on channels with an approval rule wait here until an approver approves them (they are then queued for their time) or asks for changes. Rules are set in Settings → Approval rules.</p>
      </PageHeader>
      {done ? <Notice kind="ok">{done}</Notice> : null}
      {queue.isPending ? <Spinner label="Loading the approval queue" /> : null}
      <ErrorNotice error={queue.error} />
      {queue.data && groups.length === 0 ? (
        <EmptyState title="Nothing waiting for approval">
          <p>When someone submits a post for approval, it shows here.</p>
        </EmptyState>
      ) : null}
      {groups.length > 0 ? (
        <>
          <p className="hint" role="status">
            {pending} waiting for a decision{groups.length > pending ? `, ${groups.length - pending} sent back for changes` : ''}.
          </p>
          <ul className="approval-list">
            {groups.map((g) => (
              <GroupCard key={g.group} group={g} tz={tz} onDecided={setDone} />
            ))}
          </ul>
        </>
      ) : null}
    </>
  );
}
