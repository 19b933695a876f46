import { Link, useLocation } from 'react-router';
import { useMe } from '../../api/session.js';
import { useNotifications } from './queries.js';
import { countNew, useSeen } from './seen.js';
import './notifications.css';

/** What the bell says to a screen reader (and on hover). */
export function bellLabel(count: number, more: boolean): string {
  if (count === 0) return 'Notifications, none new';
  return `${count}${more ? '+' : ''} new notification${count === 1 && !more ? '' : 's'}`;
}

function BellIcon() {
  return (
    <svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" focusable="false">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
      <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
    </svg>
  );
}

/**
 * The top bar's bell: polls GET /notifications every 30 s while the tab is visible and counts
 * those newer than the last look at the list (kept per organisation in this browser).
 */
export function NotificationBell() {
  const me = useMe();
  const seen = useSeen(me.organization.id);
  const location = useLocation();
  const page = useNotifications(0, { poll: true });
  const list = page.data?.notifications ?? [];
  const count = countNew(list, seen);
  // every item of the first page is new and there are more pages: at least this many
  const more = Boolean(page.data?.hasMore) && count === list.length;
  const label = bellLabel(count, more);
  const current = location.pathname === '/notifications';
  return (
    <>
    <Link to="/notifications" className={`bell${current ? ' bell-current' : ''}`} aria-label={label} title={label} {...(current ? { 'aria-current': 'page' as const } : {})}>
      <BellIcon />
      {count > 0 ? (
        <span className="bell-count" aria-hidden="true">
          {count > 99 ? '99+' : `${count}${more ? '+' : ''}`}
        </span>
      ) : null}
    </Link>
    {/* announced when the count changes (the link's own name is read only on focus) */}
    <span className="visually-hidden" role="status">
      {count > 0 ? label : ''}
    </span>
    </>
  );
}
