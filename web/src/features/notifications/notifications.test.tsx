import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, meFixture, renderPage, type Call } from '../../test/kit.js';

// the typed client keeps the fetch it finds when created: stub it before anything is imported
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { NotificationBell } = await import('./NotificationBell.js');
const { default: NotificationsPage } = await import('./NotificationsPage.js');
const { countNew, markSeen, readSeen, seenKey } = await import('./seen.js');
const { notificationTarget } = await import('./links.js');

const n = (id: string, createdAt: string, content = `Notification ${id}`, link: string | null = null) => ({ id, content, link, createdAt });
const LIST = [
  n('n3', '2025-03-03T10:00:00.000Z', 'Your post has been published on Telegram (Acme News) at https://t.me/acmenews/7', 'https://t.me/acmenews/7'),
  n('n2', '2025-03-02T10:00:00.000Z', 'Your post on Telegram (Acme News) failed: Bad Request: chat not found', '/posts/p-2'),
  n('n1', '2025-03-01T10:00:00.000Z', 'Channel Acme (bluesky) must be reconnected', 'javascript:alert(1)'),
];

let calls: Call[];
function serve(pages: Record<number, { notifications: ReturnType<typeof n>[]; total: number; hasMore: boolean }>) {
  calls = [];
  fetchMock.mockImplementation(
    apiFetch(
      {
        'GET /notifications': (_req, url) => {
          const page = Number(url.searchParams.get('page') ?? '0');
          return { ...(pages[page] ?? { notifications: [], total: 0, hasMore: false }), page, limit: 100 };
        },
      },
      calls,
    ),
  );
}

beforeEach(() => localStorage.clear());
afterEach(() => fetchMock.mockReset());

describe('new-notification counting', () => {
  it('counts those newer than the mark; the mark only moves forward and is kept per organisation', () => {
    expect(countNew(LIST, null)).toBe(3);
    expect(countNew(LIST, '2025-03-01T10:00:00.000Z')).toBe(2);
    markSeen('org-1', '2025-03-02T10:00:00.000Z');
    markSeen('org-1', '2025-03-01T00:00:00.000Z');
    expect(readSeen('org-1')).toBe('2025-03-02T10:00:00.000Z');
    expect(readSeen('org-2')).toBeNull();
    expect(localStorage.getItem(seenKey('org-1'))).toBe('2025-03-02T10:00:00.000Z');
  });

  it('the bell shows how many are new since the list was last opened, with an accessible name, and links to the list', async () => {
    serve({ 0: { notifications: LIST, total: 3, hasMore: false } });
    localStorage.setItem(seenKey('org-1'), '2025-03-01T10:00:00.000Z');
    renderPage(<NotificationBell />);
    const bell = await screen.findByRole('link', { name: '2 new notifications' });
    expect(bell.getAttribute('href')).toBe('/notifications');
    expect(bell.textContent).toBe('2');
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/notifications' });
    expect(calls[0]!.search.get('page')).toBe('0');
  });

  it('another organisation has its own mark; nothing new reads "none new" and shows no badge', async () => {
    serve({ 0: { notifications: LIST, total: 3, hasMore: false } });
    localStorage.setItem(seenKey('org-2'), '2025-03-03T10:00:00.000Z');
    renderPage(<NotificationBell />, { me: meFixture({ organizationId: 'org-2' }) });
    const bell = await screen.findByRole('link', { name: 'Notifications, none new' });
    expect(bell.querySelector('.bell-count')).toBeNull();
  });

  it('a whole first page of new ones with more pages behind reads "100+"', async () => {
    const many = Array.from({ length: 100 }, (_, i) => n(`m${i}`, new Date(Date.UTC(2025, 2, 1, 0, 100 - i)).toISOString()));
    serve({ 0: { notifications: many, total: 250, hasMore: true } });
    renderPage(<NotificationBell />);
    const bell = await screen.findByRole('link', { name: '100+ new notifications' });
    expect(bell.textContent).toBe('99+');
  });

  it('the bell polls every 30 s (TanStack Query pauses it while the tab is hidden)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      serve({ 0: { notifications: LIST, total: 3, hasMore: false } });
      renderPage(<NotificationBell />);
      await screen.findByRole('link', { name: '3 new notifications' });
      expect(calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(30_000);
      await waitFor(() => expect(calls).toHaveLength(2));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the notifications page', () => {
  it('lists them newest first with time in the zone, UTC on hover, safe links; opening it marks them seen and the bell follows', async () => {
    serve({ 0: { notifications: LIST, total: 3, hasMore: false } });
    localStorage.setItem(seenKey('org-1'), '2025-03-02T10:00:00.000Z');
    renderPage(
      <>
        <NotificationBell />
        <NotificationsPage />
      </>,
      { me: meFixture({ timezone: 'Asia/Tokyo' }) },
    );
    const items = await screen.findAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.notification-content')?.textContent)).toEqual(LIST.map((x) => x.content));
    // only the one after the last look is marked new on this visit
    expect(items.map((li) => li.classList.contains('notification-new'))).toEqual([true, false, false]);
    const time = items[0]!.querySelector('time')!;
    expect(time.getAttribute('title')).toBe('2025-03-03 10:00 UTC');
    expect(time.textContent).toMatch(/19:00|7:00\sPM/); // 10:00 UTC in Tokyo
    const web = screen.getByRole('link', { name: /Open on t\.me/ });
    expect(web.getAttribute('href')).toBe('https://t.me/acmenews/7');
    expect(web.getAttribute('target')).toBe('_blank');
    expect(items[1]!.querySelector('a')?.getAttribute('href')).toBe('/posts/p-2');
    expect(items[2]!.querySelector('a')).toBeNull();
    await waitFor(() => expect(readSeen('org-1')).toBe('2025-03-03T10:00:00.000Z'));
    await screen.findByRole('link', { name: 'Notifications, none new' });
  });

  it('pages through when the API paginates', async () => {
    const older = [n('o1', '2025-01-01T10:00:00.000Z', 'Older one')];
    serve({ 0: { notifications: LIST, total: 101, hasMore: true }, 1: { notifications: older, total: 101, hasMore: false } });
    renderPage(<NotificationsPage />, { path: '/notifications', route: '/notifications' });
    await screen.findByText('Page 1 of 2');
    await userEvent.click(screen.getByRole('button', { name: 'Older →' }));
    await screen.findByText('Older one');
    expect(screen.getByTestId('location').textContent).toBe('/notifications?page=2');
    expect(calls.at(-1)!.search.get('page')).toBe('1');
    expect(screen.getByRole('button', { name: 'Older →' })).toHaveProperty('disabled', true);
  });

  it('says so when there are none', async () => {
    serve({ 0: { notifications: [], total: 0, hasMore: false } });
    renderPage(<NotificationsPage />);
    await screen.findByText('No notifications yet');
  });

  it('links: app paths stay in the app, absolute web addresses open apart, other schemes are not links', () => {
    expect(notificationTarget('/posts/abc')).toEqual({ kind: 'app', to: '/posts/abc' });
    expect(notificationTarget('/account/security')).toEqual({ kind: 'service', href: '/account/security' });
    expect(notificationTarget('https://bsky.app/profile/x/post/1')).toMatchObject({ kind: 'web', host: 'bsky.app' });
    expect(notificationTarget('//evil.example/x')).toBeNull();
    expect(notificationTarget('javascript:alert(1)')).toBeNull();
    expect(notificationTarget(null)).toBeNull();
  });
});
