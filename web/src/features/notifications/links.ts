/** Where a notification's link goes: a page of this app, another address of the service, or the web. */
export type NotificationTarget = { kind: 'app'; to: string } | { kind: 'service'; href: string } | { kind: 'web'; href: string; host: string };

/** The app's own pages (routes in App.tsx): opened without reloading the app. */
const APP_PATHS = ['/calendar', '/posts/', '/channels', '/library', '/analytics', '/notifications', '/settings'];

/**
 * Links may be app paths (`/posts/…`) or absolute URLs (the published post on the platform).
 * Anything else — other schemes, protocol-relative `//host` — is not made a link.
 */
export function notificationTarget(link: string | null | undefined): NotificationTarget | null {
  const raw = link?.trim();
  if (!raw) return null;
  if (raw.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/\\')) {
    return APP_PATHS.some((p) => raw === p || raw.startsWith(p.endsWith('/') ? p : `${p}/`) || raw.startsWith(`${p}?`)) ? { kind: 'app', to: raw } : { kind: 'service', href: raw };
  }
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return { kind: 'web', href: url.href, host: url.host };
  } catch {
    return null;
  }
}
