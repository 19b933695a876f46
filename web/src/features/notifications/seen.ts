import { useCallback, useSyncExternalStore } from 'react';

/**
 * When the person last looked at the notifications, per organisation, in this browser
 * (localStorage). Kept as the `createdAt` of the newest notification they have seen — the
 * server's own clock — so a wrong clock on the person's computer cannot hide or resurrect any.
 */
const PREFIX = 'tidings.notifications.seen.';
/** Same-tab changes (the storage event only reaches other tabs). */
const EVENT = 'tidings:notifications-seen';

export function seenKey(organizationId: string): string {
  return PREFIX + organizationId;
}

export function readSeen(organizationId: string): string | null {
  try {
    const v = window.localStorage.getItem(seenKey(organizationId));
    return v && !Number.isNaN(Date.parse(v)) ? v : null;
  } catch {
    return null; // storage disabled: everything counts as new
  }
}

/** Moves the mark forward to `createdAt` (never back: an older page does not undo a newer look). */
export function markSeen(organizationId: string, createdAt: string): void {
  const current = readSeen(organizationId);
  if (current && Date.parse(current) >= Date.parse(createdAt)) return;
  try {
    window.localStorage.setItem(seenKey(organizationId), createdAt);
  } catch {
    return;
  }
  window.dispatchEvent(new CustomEvent(EVENT, { detail: organizationId }));
}

/** How many of `notifications` (newest first) are newer than the mark. */
export function countNew(notifications: readonly { createdAt: string }[], seen: string | null): number {
  if (!seen) return notifications.length;
  const mark = Date.parse(seen);
  return notifications.filter((n) => Date.parse(n.createdAt) > mark).length;
}

function subscribe(onChange: () => void) {
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key.startsWith(PREFIX)) onChange();
  };
  window.addEventListener('storage', onStorage);
  window.addEventListener(EVENT, onChange);
  return () => {
    window.removeEventListener('storage', onStorage);
    window.removeEventListener(EVENT, onChange);
  };
}

/** The mark, kept current across tabs and components. */
export function useSeen(organizationId: string): string | null {
  const get = useCallback(() => readSeen(organizationId), [organizationId]);
  return useSyncExternalStore(subscribe, get, () => null);
}
