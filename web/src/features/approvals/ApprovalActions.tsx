import { useState, type FormEvent } from 'react';
import { ApiFailure } from '../../api/client.js';
import { useTimeZone } from '../../api/session.js';
import { Button, ErrorNotice, Field, Modal, TextInput } from '../../components/ui.js';
import { instantFromZone, partsInZone } from '../../lib/time.js';
import { useDecision } from './queries.js';

const MAX_COMMENT = 5000;

/** A 409 from approve naming the `date` field: the planned time has passed, a new date is needed. */
function timePassed(error: unknown): boolean {
  return error instanceof ApiFailure && error.status === 409 && (error.body.fields ?? []).some((f) => f.path === 'date');
}

/** An hour from now on the hour, as the first guess for a new date. */
function nextHourIso(): string {
  const d = new Date(Date.now() + 60 * 60_000);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

/**
 * Approve and Request changes for one post group (the approvals page and the post page). Approving
 * a group whose time has passed (409) asks for a new date; requesting changes asks for a comment,
 * which goes into the post's comment thread.
 */
export function ApprovalActions({ group, label, onDone }: { group: string; label?: string; onDone?: (what: 'approved' | 'changes_requested') => void }) {
  const tz = useTimeZone();
  const decide = useDecision(group);
  const [asking, setAsking] = useState<'comment' | 'date' | null>(null);
  const [comment, setComment] = useState('');
  const [commentError, setCommentError] = useState<string>();
  const [when, setWhen] = useState(() => partsInZone(nextHourIso(), tz));

  function approve(date?: string) {
    decide.mutate(
      { kind: 'approve', ...(date ? { date } : {}) },
      {
        onSuccess: () => {
          setAsking(null);
          onDone?.('approved');
        },
        onError: (e) => {
          if (timePassed(e)) setAsking('date');
        },
      },
    );
  }

  function sendChanges(e: FormEvent) {
    e.preventDefault();
    const text = comment.trim();
    if (!text) {
      setCommentError('Say what needs changing.');
      return;
    }
    setCommentError(undefined);
    decide.mutate(
      { kind: 'request-changes', comment: text },
      {
        onSuccess: () => {
          setAsking(null);
          setComment('');
          onDone?.('changes_requested');
        },
      },
    );
  }

  function approveAt(e: FormEvent) {
    e.preventDefault();
    if (!when.date || !when.time) return;
    approve(instantFromZone(when.date, when.time, tz));
  }

  const busy = decide.isPending;
  return (
    <>
      <div className="approval-actions">
        <Button onClick={() => approve()} disabled={busy} aria-label={label ? `Approve ${label}` : undefined}>
          {busy && decide.variables?.kind === 'approve' && asking === null ? 'Approving…' : 'Approve'}
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            decide.reset();
            setAsking('comment');
          }}
          disabled={busy}
          aria-label={label ? `Request changes to ${label}` : undefined}
        >
          Request changes
        </Button>
      </div>
      {asking === null && decide.error && !timePassed(decide.error) ? <ErrorNotice error={decide.error} /> : null}

      <Modal open={asking === 'comment'} onOpenChange={(o) => (o || busy ? undefined : setAsking(null))} title="Request changes" description="Say what needs changing: the comment goes to the post’s comment thread, and the post goes back to its author.">
        <form onSubmit={sendChanges} noValidate>
          <Field label="What needs changing" error={commentError}>
            {(p) => <textarea {...p} className="input" rows={5} maxLength={MAX_COMMENT} required value={comment} onChange={(e) => setComment(e.target.value)} />}
          </Field>
          {decide.error ? <ErrorNotice error={decide.error} /> : null}
          <div className="dialog-actions">
            <Button variant="ghost" onClick={() => setAsking(null)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {busy ? 'Sending…' : 'Request changes'}
            </Button>
          </div>
        </form>
      </Modal>

      <Modal open={asking === 'date'} onOpenChange={(o) => (o || busy ? undefined : setAsking(null))} title="Choose a new time" description="The time this post was planned for has passed. Approve it for a new time.">
        <form onSubmit={approveAt} noValidate>
          <div className="approval-when">
            <Field label="Date">{(p) => <TextInput {...p} type="date" required value={when.date} onChange={(e) => setWhen((w) => ({ ...w, date: e.target.value }))} />}</Field>
            <Field label="Time">{(p) => <TextInput {...p} type="time" required value={when.time} onChange={(e) => setWhen((w) => ({ ...w, time: e.target.value }))} />}</Field>
          </div>
          <p className="hint">In {tz}</p>
          {/* a refusal of the new time itself (passed too, or anything else) */}
          {decide.error && decide.variables?.kind === 'approve' && decide.variables.date ? <ErrorNotice error={decide.error} /> : null}
          <div className="dialog-actions">
            <Button variant="ghost" onClick={() => setAsking(null)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy || !when.date || !when.time}>
              {busy ? 'Approving…' : 'Approve for this time'}
            </Button>
          </div>
        </form>
      </Modal>
    </>
  );
}
