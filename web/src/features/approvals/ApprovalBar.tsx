import { useState } from 'react';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Notice } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { ApprovalActions } from './ApprovalActions.js';
import { useApprovalCheck, useApprovalRules, useDecision } from './queries.js';
import { approvalOf, STATUS_LABEL, type PostApproval } from './types.js';
import './approvals.css';

/** The words of a post's approval badge: "Approved by Olga" once decided. */
export function approvalLabel(a: PostApproval): string {
  return a.status === 'approved' && a.decidedBy ? `Approved by ${a.decidedBy}` : STATUS_LABEL[a.status];
}

/**
 * A post's approval on its page (issue 31): its status, and what the person can do about it —
 * "Submit for approval" for a draft on channels that need it (or one sent back for changes),
 * Approve / Request changes for an approver while it waits. Nothing shows for a post no rule covers.
 */
export function ApprovalBar({ post }: { post: { group: string; state: string; integration: { id: string }; approval?: PostApproval | null } }) {
  const tz = useTimeZone();
  const approval = approvalOf(post);
  const check = useApprovalCheck([post.integration.id]);
  const submit = useDecision(post.group);
  const rules = useApprovalRules(Boolean(approval?.ruleId));
  const [note, setNote] = useState<string>();
  const status = approval?.status ?? null;
  const canSubmit = post.state === 'DRAFT' && (status === 'changes_requested' || (status === null && check.data?.required === true));
  const canDecide = status === 'pending_approval' && check.data?.canApprove === true;
  if (!approval && !canSubmit) return null;
  // the rule that asked (named from the rules list), else the one covering the channel now
  const ruleName = (approval?.ruleId ? rules.data?.find((r) => r.id === approval.ruleId)?.name : undefined) ?? check.data?.rule?.name;

  return (
    <section className={`approval-bar${status ? ` approval-${status}` : ''}`} aria-label="Approval">
      <div className="approval-bar-text">
        {approval ? <span className={`badge approval-${approval.status}`}>{approvalLabel(approval)}</span> : <span className="badge">Needs approval</span>}
        <p className="hint">
          {ruleName ? `Rule “${ruleName}”` : null}
          {approval?.status === 'pending_approval' && approval.requestedBy ? (
            <>
              {' · '}submitted by {approval.requestedBy}
              {approval.requestedAt ? (
                <>
                  {' '}
                  <time dateTime={approval.requestedAt} title={utcTitle(approval.requestedAt)}>
                    {formatDateTime(approval.requestedAt, tz)}
                  </time>
                </>
              ) : null}
            </>
          ) : null}
          {approval?.status === 'changes_requested' ? ` · ${approval.decidedBy ? `${approval.decidedBy} asked` : 'Asked'} for changes: see the comments, edit, then submit again.` : null}
          {!approval ? ' · This post is published only once an approver approves it.' : null}
        </p>
      </div>
      {canSubmit ? (
        <Button
          onClick={() => submit.mutate({ kind: 'submit' }, { onSuccess: () => setNote('Sent for approval.') })}
          disabled={submit.isPending}
        >
          {submit.isPending ? 'Submitting…' : 'Submit for approval'}
        </Button>
      ) : null}
      {canDecide ? <ApprovalActions group={post.group} onDone={(what) => setNote(what === 'approved' ? 'Approved: the post is queued for its time.' : 'Changes requested.')} /> : null}
      <ErrorNotice error={submit.error} />
      {note ? <Notice kind="ok">{note}</Notice> : null}
    </section>
  );
}
