import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMe, useTimeZone } from '../../api/session.js';
import { Button, EmptyState, ErrorNotice, PageHeader, Spinner } from '../../components/ui.js';
import { formatDateTime, utcTitle } from '../../lib/time.js';
import { notificationTarget } from './links.js';
import { useNotifications, type Notification } from './queries.js';
import { markSeen, readSeen } from './seen.js';
import './notifications.css';

function NotificationLink({ link }: { link: string | null }) {
  const target = notificationTarget(link);
  if (!target) return null;
  if (target.kind === 'app') return <Link to={target.to}>Open</Link>;
  if (target.kind === 'service') return <a href={target.href}>Open</a>;
  return (
    <a href={target.href} target="_blank" rel="noopener noreferrer">
      Open on {target.host} ↗
    </a>
  );
}

function Item({ n, isNew, timeZone }: { n: Notification; isNew: boolean; timeZone: string }) {
  return (
    <li className={`notification${isNew ? ' notification-new' : ''}`}>
      <div className="notification-body">
        {isNew ? <span className="notification-pill">New</span> : null}
        <p className="notification-content">{n.content}</p>
      </div>
      <div className="notification-meta">
        <time dateTime={n.createdAt} title={utcTitle(n.createdAt)}>
          {formatDateTime(n.createdAt, timeZone)}
        </time>
        <NotificationLink link={n.link} />
      </div>
    </li>
  );
}

/** The organisation's notifications, newest first, a page at a time; opening it marks them seen. */
export default function NotificationsPage() {
  const me = useMe();
  const tz = useTimeZone();
  const orgId = me.organization.id;
  const [params, setParams] = useSearchParams();
  const requested = Number(params.get('page') ?? '1');
  const page = Number.isInteger(requested) && requested >= 1 ? requested - 1 : 0;
  const q = useNotifications(page, { poll: page === 0 });
  // what counted as seen when the list was opened: those after it are marked "New" on this visit
  const [seenBefore] = useState(() => readSeen(orgId));

  const newest = q.data?.notifications[0]?.createdAt;
  useEffect(() => {
    if (newest) markSeen(orgId, newest);
  }, [orgId, newest]);

  const pages = q.data ? Math.max(1, Math.ceil(q.data.total / q.data.limit)) : 1;
  const goTo = (p: number) => {
    const next = new URLSearchParams(params);
    if (p === 0) next.delete('page');
    else next.set('page', String(p + 1));
    setParams(next);
    window.scrollTo({ top: 0 });
  };
  const isNew = (n: Notification) => !seenBefore || Date.parse(n.createdAt) > Date.parse(seenBefore);

  return (
    <>
      <PageHeader title="Notifications">
        <p className="hint">What Tidings has to tell your organisation: posts published or failed, channels to reconnect, webhooks turned off.</p>
      </PageHeader>
      {q.isPending ? <Spinner label="Loading notifications" /> : null}
      <ErrorNotice error={q.error} />
      {q.data && q.data.notifications.length === 0 ? (
        <EmptyState title={page === 0 ? 'No notifications yet' : 'No notifications on this page'}>
          {page === 0 ? <p>When a post publishes or fails, or a channel needs attention, it shows here.</p> : <Button variant="secondary" onClick={() => goTo(0)}>Back to the newest</Button>}
        </EmptyState>
      ) : null}
      {q.data && q.data.notifications.length > 0 ? (
        <ol className="notification-list" aria-label={`Notifications, page ${page + 1} of ${pages}`}>
          {q.data.notifications.map((n) => (
            <Item key={n.id} n={n} isNew={isNew(n)} timeZone={tz} />
          ))}
        </ol>
      ) : null}
      {q.data && (page > 0 || q.data.hasMore) ? (
        <nav className="pager" aria-label="Notification pages">
          <Button variant="secondary" disabled={page === 0} onClick={() => goTo(page - 1)}>
            ← Newer
          </Button>
          <span>
            Page {page + 1} of {pages} <span className="hint">({q.data.total} in all)</span>
          </span>
          <Button variant="secondary" disabled={!q.data.hasMore} onClick={() => goTo(page + 1)}>
            Older →
          </Button>
        </nav>
      ) : null}
    </>
  );
}
