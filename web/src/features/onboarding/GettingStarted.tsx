import { useId, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useMe } from '../../api/session.js';
import { Button } from '../../components/ui.js';
import { checklistItems, dismissKey, readDismissed, shouldShow, writeDismissed, type ChecklistItem, type StepId } from './checklist.js';
import { useOnboarding } from './useOnboarding.js';
import './onboarding.css';

export interface GettingStartedProps {
  /** the live number of channels (GET /integrations), when the page has it */
  channels?: number;
  /** opens the connect dialog */
  onConnect: () => void;
  /** opens the composer */
  onWrite: () => void;
  /**
   * More actions on the first item ("Connect a channel"), after its own button. Reserved for
   * "Try it with sandbox channels" (issue 28, docs/design/sandbox.md): pass the button here.
   */
  connectExtraActions?: ReactNode;
}

/** One line of the checklist: a done mark, its title, what it is about, and what to do. */
export function ChecklistStep({ item, description, action, extraActions }: { item: ChecklistItem; description: ReactNode; action?: ReactNode; extraActions?: ReactNode }) {
  const id = useId();
  return (
    <li className={item.done ? 'gs-step gs-done' : 'gs-step'} data-step={item.id} aria-labelledby={`${id}-title`}>
      <span className="gs-mark" aria-hidden="true">
        {item.done ? '✓' : ''}
      </span>
      <div className="gs-body">
        <p className="gs-title" id={`${id}-title`}>
          {item.title}
          <span className="visually-hidden">{item.done ? ' (done)' : ' (to do)'}</span>
        </p>
        {item.done ? null : <p className="gs-text">{description}</p>}
      </div>
      {item.done ? null : (
        <div className="gs-actions">
          {action}
          {/* the place for more actions on a step (the first one's: the sandbox button) */}
          {extraActions}
        </div>
      )}
    </li>
  );
}

/**
 * "Getting started" on the calendar (issue 28): four first steps of a new organisation, each
 * ticked from the API (GET /onboarding), gone when all are done or when the person puts it away
 * (remembered per person and organisation in this browser).
 */
export function GettingStarted({ channels, onConnect, onWrite, connectExtraActions }: GettingStartedProps) {
  const me = useMe();
  const key = dismissKey(me.user.id, me.organization.id);
  const [dismissed, setDismissed] = useState(() => readDismissed(key));
  const onboarding = useOnboarding(!dismissed);
  const headingId = useId();
  // a failed read shows nothing: the checklist is a help, never in the way of the calendar
  if (dismissed || !onboarding.data) return null;
  const items = checklistItems(onboarding.data, channels);
  if (!shouldShow(items, dismissed)) return null;
  const done = items.filter((i) => i.done).length;
  const byId = Object.fromEntries(items.map((i) => [i.id, i])) as Record<StepId, ChecklistItem>;
  const canManage = me.organization.role === 'owner' || me.organization.role === 'admin';
  const noChannel = !byId['connect-channel'].done;

  return (
    <section className="gs card" aria-labelledby={headingId}>
      <div className="gs-head">
        <h2 id={headingId}>Getting started</h2>
        <p className="gs-progress">
          {done} of {items.length} done
        </p>
        <Button
          variant="ghost"
          className="gs-dismiss"
          onClick={() => {
            writeDismissed(key);
            setDismissed(true);
          }}
        >
          Hide checklist
        </Button>
      </div>
      <ol className="gs-steps">
        <ChecklistStep
          item={byId['connect-channel']}
          description="Link a Telegram chat, a Bluesky account or another platform to post to."
          action={<Button onClick={onConnect}>Connect a channel</Button>}
          extraActions={connectExtraActions}
        />
        <ChecklistStep
          item={byId['first-post']}
          description={noChannel ? 'Connect a channel first: a post goes to one or more channels.' : 'Plan a post, or save a draft, on one of your channels.'}
          action={
            <Button variant="secondary" onClick={onWrite} disabled={noChannel}>
              Write a post
            </Button>
          }
        />
        <ChecklistStep
          item={byId['invite-teammate']}
          description={canManage ? 'Invite someone to plan and publish with you.' : 'Owners and admins invite people; ask one of them.'}
          action={canManage ? <Link className="btn btn-secondary" to="/settings/members">Invite a teammate</Link> : <Link to="/settings/members">See members</Link>}
        />
        <ChecklistStep
          item={byId['api-key']}
          description={canManage ? 'Scripts, the Postiz CLI and other tools use a key to post for you.' : 'Owners and admins create API keys for scripts and tools.'}
          action={canManage ? <Link className="btn btn-secondary" to="/settings/api-keys">Create an API key</Link> : null}
        />
      </ol>
    </section>
  );
}
