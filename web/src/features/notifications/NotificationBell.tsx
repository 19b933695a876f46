import { Link } from 'react-router';

/** Placeholder: the bell with the unread count (polled) is built in its own slice of issue 16. */
export function NotificationBell() {
  return <Link to="/notifications">Notifications</Link>;
}
