import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, renderPage, type Call, type Routes } from '../../test/kit.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

// The composer is another slice: only its interface is used here.
const composed = vi.hoisted(() => [] as unknown[]);
vi.mock('../compose/ComposeDialog.js', () => ({
  default: ({ initial }: { initial?: unknown }) => {
    composed.push(initial);
    return <div role="dialog" aria-label="Composer" />;
  },
}));
// chart.js needs a real canvas; the numbers are what is checked here
vi.mock('../analytics/MetricChart.js', () => ({ default: ({ series }: { series: { label: string } }) => <div data-testid="chart">{series.label}</div> }));

const { default: PostDetailPage } = await import('./PostDetailPage.js');

const base = {
  id: 'p1',
  content: '<p>Launch <strong>day</strong></p><script>window.pwned = 1</script><img src=x onerror="window.pwned=1">',
  publishDate: '2025-03-03T09:00:00.000Z',
  releaseURL: null as string | null,
  releaseId: null as string | null,
  state: 'ERROR' as 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR',
  intervalInDays: null,
  group: 'g-1',
  creationMethod: 'app',
  settings: {},
  tags: [],
  integration: { id: 'tg-1', providerIdentifier: 'telegram' as string, name: 'Acme News', picture: null },
  image: [],
  error: "Bad Request: can't parse entities: unsupported start tag" as string | null,
  delay: 0,
  publishedAt: null as string | null,
  thread: [] as unknown[],
  createdAt: '2025-03-01T09:00:00.000Z',
  updatedAt: '2025-03-03T09:00:05.000Z',
  attempts: 1,
  lastAttemptAt: '2025-03-03T09:00:02.000Z' as string | null,
  nextAttemptAt: null as string | null,
};
type Detail = typeof base;

let calls: Call[] = [];
function serve(post: Detail, extra: Routes = {}) {
  calls = [];
  fetchMock.mockImplementation(apiFetch({ 'GET /posts/p1': () => post, ...extra }, calls));
}
const open = () => renderPage(<PostDetailPage />, { path: '/posts/:id', route: '/posts/p1' });

afterEach(() => {
  fetchMock.mockReset();
  composed.length = 0;
});

describe('post detail', () => {
  it('a failed post: the platform’s words, times in the zone with UTC on hover, content shown safely; Retry queues it again', async () => {
    let current = base;
    calls = [];
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /posts/p1': () => current,
          'GET /posts/p1/missing': () => ({ ready: true, missing: [] }),
          'PUT /posts/p1/status': () => {
            current = { ...base, state: 'QUEUE', error: null, nextAttemptAt: '2099-01-01T00:00:00.000Z' };
            return { id: 'p1', state: 'QUEUE' };
          },
        },
        calls,
      ),
    );
    const { container } = open();
    await screen.findByRole('heading', { level: 1, name: 'Post on Acme News' });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Not published on Telegram');
    expect(within(alert).getByText("Bad Request: can't parse entities: unsupported start tag")).toBeTruthy();
    expect(container.querySelector('.post-body strong')?.textContent).toBe('day');
    expect(container.querySelector('script, img')).toBeNull();
    const planned = container.querySelector(`time[datetime="${base.publishDate}"]`)!;
    expect(planned.getAttribute('title')).toBe('2025-03-03 09:00 UTC');
    expect(planned.textContent).toMatch(/10:00|10:00\sAM/); // Berlin, UTC+1 in March
    expect(screen.queryByRole('button', { name: 'Move to drafts' })).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/posts/p1/status', body: { status: 'schedule' } }));
    // read again after the change: the badge follows the API
    await waitFor(() => expect(screen.getAllByText('Queued').length).toBeGreaterThan(0));
    expect(screen.getByRole('button', { name: 'Move to drafts' })).toBeTruthy();
  });

  it('a published post: its platform link, each thread item’s own state and link; delete says the post stays on the platform, then goes to the calendar', async () => {
    const post: Detail = {
      ...base,
      state: 'PUBLISHED',
      error: null,
      content: 'Hello',
      releaseId: '7',
      releaseURL: 'https://t.me/acmenews/7',
      publishedAt: '2025-03-03T09:00:03.000Z',
      thread: [
        { id: 't1', content: 'First reply', image: [], delay: 0, state: 'PUBLISHED', releaseId: '8', releaseURL: 'https://t.me/acmenews/8', error: null, publishedAt: '2025-03-03T09:00:04.000Z' },
        { id: 't2', content: 'Second reply', image: [], delay: 5, state: 'ERROR', releaseId: null, releaseURL: null, error: 'Bad Request: message is too long', publishedAt: null },
      ],
    };
    serve(post, { 'GET /analytics/post/p1': () => ({ missing: true }), 'DELETE /posts/p1': () => ({ deleted: ['p1', 't1', 't2'] }) });
    open();
    const links = await screen.findAllByRole('link', { name: /View on Telegram/ });
    expect(links[0]!.getAttribute('href')).toBe('https://t.me/acmenews/7');
    expect(screen.getByRole('link', { name: /View reply 1 on Telegram/ }).getAttribute('href')).toBe('https://t.me/acmenews/8');
    expect(screen.getByText('Bad Request: message is too long')).toBeTruthy();
    // a failed reply can be retried; a published post is not edited
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Edit' })).toBeNull();
    await screen.findByText(/does not know this post’s id on Telegram/);
    expect(calls.find((c) => c.path === '/analytics/post/p1')!.search.get('date')).toBe('30');

    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this post?' });
    expect(dialog.textContent).toContain('This deletes Tidings’ record only. The post stays on Telegram.');
    expect(dialog.textContent).toContain('Tidings never deletes anything on Telegram');
    expect(dialog.textContent).toContain('Its 2 replies go with it.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete from Tidings' }));
    await waitFor(() => expect(screen.getByTestId('location').textContent).toBe('/calendar'));
    expect(calls.some((c) => c.method === 'DELETE' && c.path === '/posts/p1')).toBe(true);
  });

  it('a draft: what still blocks it, Edit opens the composer on its group, Duplicate on a copy', async () => {
    serve(
      { ...base, state: 'DRAFT', error: null, attempts: 0, lastAttemptAt: null, content: 'Draft text' },
      {
        'GET /posts/p1/missing': () => ({
          ready: false,
          missing: [
            { field: 'settings.title', code: 'required', message: 'A title is required' },
            { field: 'value[0].image', code: 'image_required', message: 'This platform needs an image' },
          ],
        }),
      },
    );
    open();
    await screen.findByText('2 things still block it:');
    expect(screen.getByText('A title is required')).toBeTruthy();
    expect(screen.getByText(/item 1 › image/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Edit' }));
    await screen.findByRole('dialog', { name: 'Composer' });
    expect(composed.at(-1)).toEqual({ group: 'g-1' });
    await userEvent.click(screen.getByRole('button', { name: 'Duplicate' }));
    await waitFor(() => expect(composed.at(-1)).toEqual({ duplicateOf: 'p1' }));
  });

  it('a queued post moves back to drafts; a refusal is shown as the API worded it', async () => {
    serve({ ...base, state: 'QUEUE', error: null, nextAttemptAt: '2099-01-01T00:00:00.000Z' }, { 'PUT /posts/p1/status': () => apiError(409, 'CONFLICT', 'This post is being published right now') });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Move to drafts' }));
    await screen.findByText('This post is being published right now');
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ status: 'draft' });
  });

  it('per-post figures as numbers', async () => {
    serve(
      { ...base, state: 'PUBLISHED', error: null, releaseId: 'at://x', releaseURL: 'https://bsky.app/x', publishedAt: '2025-03-03T09:00:03.000Z', integration: { ...base.integration, name: 'Acme', providerIdentifier: 'bluesky' } },
      {
        'GET /analytics/post/p1': () => [
          { label: 'Likes', percentageChange: 0, data: [{ total: 12, date: '2025-03-04' }] },
          { label: 'Reposts', percentageChange: 50, data: [{ total: 2, date: '2025-03-03' }, { total: 3, date: '2025-03-04' }] },
        ],
      },
    );
    open();
    const likes = await screen.findByRole('article', { name: 'Likes' });
    expect(likes.querySelector('.metric-value')?.textContent).toBe('12');
    const reposts = screen.getByRole('article', { name: 'Reposts' });
    expect(reposts.textContent).toContain('+50%');
    await within(reposts).findByTestId('chart');
  });

  it('attempts as the API counts them: a post published on its first try says 1; a draft never tried shows none', async () => {
    const facts = () => screen.getByRole('complementary', { name: 'About this post' });
    const attemptsShown = () => {
      const term = within(facts()).queryByText('Attempts');
      return term ? term.nextElementSibling!.textContent : null;
    };
    serve({ ...base, state: 'PUBLISHED', error: null, releaseId: '7', releaseURL: 'https://t.me/acmenews/7', publishedAt: '2025-03-03T09:00:03.000Z', attempts: 1 }, { 'GET /analytics/post/p1': () => ({ missing: true }) });
    const first = open();
    await screen.findByRole('heading', { level: 1, name: 'Post on Acme News' });
    expect(attemptsShown()).toMatch(/^1\b/);
    first.unmount();

    serve({ ...base, state: 'PUBLISHED', error: null, releaseId: '7', releaseURL: 'https://t.me/acmenews/7', publishedAt: '2025-03-03T09:00:03.000Z', attempts: 3 }, { 'GET /analytics/post/p1': () => ({ missing: true }) });
    const retried = open();
    await screen.findByRole('heading', { level: 1, name: 'Post on Acme News' });
    expect(attemptsShown()).toMatch(/^3\b/);
    retried.unmount();

    serve({ ...base, state: 'DRAFT', error: null, attempts: 0, lastAttemptAt: null }, { 'GET /posts/p1/missing': () => ({ ready: true, missing: [] }) });
    open();
    await screen.findByRole('heading', { level: 1, name: 'Post on Acme News' });
    expect(attemptsShown()).toBeNull();
  });

  it('an unknown post says so', async () => {
    fetchMock.mockImplementation(apiFetch({ 'GET /posts/p1': () => apiError(404, 'NOT_FOUND', 'Post not found') }));
    open();
    await screen.findByText('Post not found');
    expect(screen.getByRole('link', { name: 'Back to the calendar' })).toBeTruthy();
  });
});
