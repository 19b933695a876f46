import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { components } from '../../api/schema.js';
import { apiError, apiFetch, channel, json, renderPage, type Call, type Routes } from '../../test/kit.js';
import { FeedsTab } from './FeedsTab.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

type Feed = components['schemas']['Feed'];
type FeedItem = components['schemas']['FeedItem'];

const CHANNELS = [channel({ id: 'ch-tg', name: 'Acme news', identifier: 'telegram' }), channel({ id: 'ch-bs', name: 'Acme sky', identifier: 'bluesky' })];

const feed = (over: Partial<Feed> = {}): Feed => ({
  id: 'f-1',
  url: 'https://blog.example.com/feed.xml',
  title: 'Acme blog',
  integrationIds: ['ch-tg'],
  template: '{title} {link}',
  mode: 'now',
  pollMinutes: 15,
  status: 'active',
  failures: 0,
  lastError: null,
  lastErrorAt: null,
  lastSuccessAt: '2026-11-29T08:00:00.000Z',
  nextPollAt: '2026-11-29T08:15:00.000Z',
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
  ...over,
});
const feedItem = (over: Partial<FeedItem> = {}): FeedItem => ({
  key: 'guid-1',
  title: 'Slow travel in winter',
  link: 'https://blog.example.com/slow-travel',
  publishedAt: '2026-11-28T12:00:00.000Z',
  firstSeenAt: '2026-11-28T12:05:00.000Z',
  outcome: 'posted',
  group: 'g-1',
  posts: [{ postId: 'p-1', integration: 'ch-tg', group: 'g-1' }],
  error: null,
  ...over,
});

function serve(routes: Routes) {
  const calls: Call[] = [];
  net.fetch = apiFetch({ 'GET /integrations': () => CHANNELS, ...routes }, calls);
  return calls;
}
const at = { path: '/autopilot/feeds/*', route: '/autopilot/feeds' };

describe('feeds', () => {
  it('lists feeds: a failing one shows its last error and next retry; a healthy one its last poll', async () => {
    serve({
      'GET /feeds': () => ({
        feeds: [
          feed(),
          feed({ id: 'f-2', title: null, url: 'https://down.example.org/rss', mode: 'slot', status: 'failing', failures: 5, lastError: 'the server answered 503', lastErrorAt: '2026-11-29T07:00:00.000Z', nextPollAt: '2026-11-29T09:00:00.000Z', integrationIds: ['ch-tg', 'ch-bs'] }),
        ],
      }),
    });
    renderPage(<FeedsTab />, at);
    const list = await screen.findByRole('list', { name: 'Feeds' });
    const [ok, failing] = within(list).getAllByRole('listitem');
    expect(ok!.textContent).toContain('Acme blog');
    expect(ok!.textContent).toContain('OK');
    expect(ok!.textContent).toContain('Post at once');
    // last polled, in Europe/Berlin
    expect(within(ok!).getByText('Last successful poll').nextSibling!.textContent).toMatch(/9:00/);
    expect(failing!.textContent).toContain('https://down.example.org/rss');
    expect(failing!.textContent).toContain('Next free posting time');
    const alert = within(failing!).getByRole('alert');
    expect(alert.textContent).toContain('Failing');
    expect(alert.textContent).toContain('the server answered 503');
    expect(alert.textContent).toContain('Next try');
    expect(alert.querySelectorAll('time')[1]!.getAttribute('dateTime')).toBe('2026-11-29T09:00:00.000Z');
    expect(within(ok!).queryByRole('alert')).toBeNull();
  });

  it('adds a feed: sends url, channels, template, mode, backfill and poll interval', async () => {
    const user = userEvent.setup();
    const calls = serve({
      'GET /feeds': () => ({ feeds: [] }),
      'POST /feeds': (_r, _u, body) => json(feed(body as Partial<Feed>), 201),
    });
    renderPage(<FeedsTab />, at);
    await screen.findByText('No feeds yet');
    await user.click(screen.getByRole('button', { name: 'Add feed' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add a feed' });
    await user.type(within(dialog).getByLabelText('Feed URL'), 'https://blog.example.com/feed.xml');
    await user.click(await within(dialog).findByRole('checkbox', { name: /Acme sky/ }));
    const template = within(dialog).getByLabelText('Post text');
    await user.clear(template);
    await user.type(template, 'New: ');
    await user.click(within(dialog).getByRole('button', { name: /^Insert \{title\}/ }));
    await user.selectOptions(within(dialog).getByLabelText('New items'), 'draft');
    await user.clear(within(dialog).getByLabelText('Post the newest now'));
    await user.type(within(dialog).getByLabelText('Post the newest now'), '3');
    await user.clear(within(dialog).getByLabelText('Check every (minutes)'));
    await user.type(within(dialog).getByLabelText('Check every (minutes)'), '30');
    await user.click(within(dialog).getByRole('button', { name: 'Add feed' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({
      url: 'https://blog.example.com/feed.xml',
      integrationIds: ['ch-bs'],
      template: 'New: {title}',
      mode: 'draft',
      pollMinutes: 30,
      backfill: 3,
    });
  });

  it('a refused URL (SSRF guard) is shown next to the URL field; no channel ticked is said before sending', async () => {
    const user = userEvent.setup();
    const calls = serve({
      'GET /feeds': () => ({ feeds: [] }),
      'POST /feeds': () => apiError(400, 'VALIDATION_FAILED', 'Invalid body', [{ path: 'url', message: 'The address is not public (127.0.0.1)' }]),
    });
    renderPage(<FeedsTab />, at);
    await user.click(await screen.findByRole('button', { name: 'Add feed' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByLabelText('Feed URL'), 'http://127.0.0.1/feed');
    await user.click(within(dialog).getByRole('button', { name: 'Add feed' }));
    expect(within(within(dialog).getByRole('group', { name: 'Channels' })).getByRole('alert').textContent).toBe('Tick at least one channel');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);

    await user.click(await within(dialog).findByRole('checkbox', { name: /Acme news/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Add feed' }));
    const url = within(dialog).getByLabelText('Feed URL');
    await waitFor(() => expect(url.getAttribute('aria-invalid')).toBe('true'));
    const errorId = url.getAttribute('aria-describedby')!.split(' ').find((s) => s.endsWith('-error'))!;
    expect(document.getElementById(errorId)!.textContent).toBe('The address is not public (127.0.0.1)');
    // shown by its field only, not repeated as a general notice
    expect(within(dialog).queryByText('Invalid body')).toBeNull();
  });

  it('recent items: state, a link to each post made, an item error', async () => {
    const user = userEvent.setup();
    serve({
      'GET /feeds': () => ({ feeds: [feed()] }),
      'GET /feeds/f-1/items': () => ({
        items: [
          feedItem(),
          feedItem({ key: 'guid-2', title: 'Broken one', link: null, outcome: 'failed', posts: [], error: 'Telegram refused it: the text is too long' }),
          feedItem({ key: 'guid-3', title: 'Old post', outcome: 'skipped', posts: [] }),
        ],
      }),
    });
    renderPage(<FeedsTab />, at);
    await user.click(await screen.findByRole('button', { name: '▸ Recent items' }));
    const table = await screen.findByRole('table', { name: 'Recent items of Acme blog' });
    const [posted, failed, skipped] = within(table).getAllByRole('row').slice(1);
    expect(posted!.textContent).toContain('Posted');
    expect(within(posted!).getByRole('link', { name: 'Post on Acme news (Telegram)' }).getAttribute('href')).toBe('/posts/p-1');
    expect(within(posted!).getByRole('link', { name: 'Slow travel in winter' }).getAttribute('href')).toBe('https://blog.example.com/slow-travel');
    expect(failed!.textContent).toContain('Failed');
    expect(failed!.textContent).toContain('Telegram refused it: the text is too long');
    expect(skipped!.textContent).toContain('Skipped');
  });

  it('poll now calls the route; edit sends only the editable fields; delete asks first', async () => {
    const user = userEvent.setup();
    let current = feed();
    const calls = serve({
      'GET /feeds': () => ({ feeds: [current] }),
      'POST /feeds/f-1/poll': () => current,
      'PATCH /feeds/f-1': (_r, _u, body) => (current = { ...current, ...(body as Partial<Feed>) }),
      'DELETE /feeds/f-1': () => ({ id: 'f-1', deleted: true }),
    });
    renderPage(<FeedsTab />, at);
    await user.click(await screen.findByRole('button', { name: 'Poll now: Acme blog' }));
    expect(await screen.findByText(/Polled: new items/)).toBeTruthy();
    expect(calls.some((c) => c.method === 'POST' && c.path === '/feeds/f-1/poll')).toBe(true);

    await user.click(screen.getByRole('button', { name: 'Edit Acme blog' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit “Acme blog”' });
    expect(within(dialog).queryByLabelText('Feed URL')).toBeNull();
    await user.selectOptions(within(dialog).getByLabelText('New items'), 'slot');
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(calls.find((c) => c.method === 'PATCH')!.body).toEqual({ integrationIds: ['ch-tg'], template: '{title} {link}', mode: 'slot', pollMinutes: 15 });
    await waitFor(() => expect(screen.getByRole('list', { name: 'Feeds' }).textContent).toContain('Next free posting time'));

    await user.click(screen.getByRole('button', { name: 'Delete Acme blog' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Delete feed' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/feeds/f-1')).toBe(true));
  });
});
