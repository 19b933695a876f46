import { useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { NavLink, useLocation } from 'react-router';
import { api, csrfHeader, unwrap } from '../api/client.js';
import { useMe } from '../api/session.js';
import { NotificationBell } from '../features/notifications/NotificationBell.js';

const NAV = [
  { to: '/calendar', label: 'Calendar' },
  { to: '/approvals', label: 'Approvals' },
  { to: '/channels', label: 'Channels' },
  { to: '/library', label: 'Media library' },
  { to: '/video', label: 'Video' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/autopilot', label: 'Autopilot' },
  { to: '/activity', label: 'Activity' },
  { to: '/settings', label: 'Settings' },
];

/** The app shell: navigation, organisation switcher, notifications, account. */
export function Layout({ children }: { children: ReactNode }) {
  const me = useMe();
  const queryClient = useQueryClient();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();

  async function switchTo(organizationId: string) {
    await unwrap(api.PUT('/me/organization', { body: { organizationId } }));
    // everything cached belonged to the other organisation
    queryClient.clear();
    window.location.assign('/calendar');
  }

  return (
    <div className="shell">
      {/* the first thing a keyboard reaches: past the navigation to the page itself */}
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to main content
      </a>
      <nav className={`sidebar${menuOpen ? ' open' : ''}`} aria-label="Main">
        <a className="brand" href="/calendar">
          <img src="/favicon.svg" alt="" width="24" height="24" /> Tidings
        </a>
        {NAV.map((n) => (
          <NavLink key={n.to} to={n.to} className={({ isActive }) => `nav-link${isActive ? ' active' : ''}`} onClick={() => setMenuOpen(false)}>
            {n.label}
          </NavLink>
        ))}
        <div className="sidebar-foot">
          <label htmlFor="org-switch" className="hint">
            Organisation
          </label>
          <select id="org-switch" value={me.organization.id} onChange={(e) => void switchTo(e.target.value)}>
            {me.organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
          <a href="/account">{me.user.email}</a>
          <form method="post" action="/account/logout">
            <input type="hidden" name="_csrf" value={csrfHeader()['x-csrf-token'] ?? ''} />
            <button type="submit" className="btn btn-ghost">
              Sign out
            </button>
          </form>
        </div>
      </nav>
      <div className="main">
        {/* the banner landmark: the bell and the phone's menu button are in a region a screen reader lists */}
        <header className="topbar">
          <button type="button" className="btn btn-ghost menu-toggle" aria-expanded={menuOpen} onClick={() => setMenuOpen((o) => !o)}>
            <span aria-hidden="true">☰</span> Menu
          </button>
          <NotificationBell key={location.pathname === '/notifications' ? 'seen' : 'bell'} />
        </header>
        {/* focusable from the skip link (tabIndex -1: not a tab stop of its own) */}
        <main className="content" id="main" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
