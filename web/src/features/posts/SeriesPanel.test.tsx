import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, channel, renderPage, type Call } from '../../test/kit.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});
vi.mock('../compose/ComposeDialog.js', () => ({ default: () => <div role="dialog" aria-label="Composer" /> }));

const { default: PostDetailPage } = await import('./PostDetailPage.js');

// Wednesday 1 July 2026, 09:00 in Berlin: the second occurrence (index 1) of a weekly series
const post = {
  id: 'p2',
  content: '<p>Weekly tips</p>',
  publishDate: '2026-07-01T07:00:00.000Z',
  releaseURL: null,
  releaseId: null,
  state: 'QUEUE',
  intervalInDays: null,
  seriesId: 's1',
  group: 'g-2',
  creationMethod: 'SERIES',
  settings: {},
  tags: [],
  integration: { id: 'tg', providerIdentifier: 'telegram', name: 'Acme News', picture: null },
  image: [],
  error: null,
  delay: 0,
  publishedAt: null,
  thread: [],
  createdAt: '2026-06-20T09:00:00.000Z',
  updatedAt: '2026-06-20T09:00:00.000Z',
  attempts: 0,
  lastAttemptAt: null,
  nextAttemptAt: null,
};

const rule = { frequency: 'weekly', interval: 1, weekdays: ['MO', 'WE'], time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-06-29', count: 10 };
const series = {
  id: 's1',
  rule,
  type: 'schedule',
  template: { shortLink: false, tags: [], posts: [{ integration: { id: 'tg' }, value: [{ content: '<p>Weekly tips</p>', image: [], delay: 0 }], settings: { __type: 'telegram' } }] },
  horizonDays: 30,
  materializedThrough: '2026-07-29T07:00:00.000Z',
  nextIndex: 9,
  completed: false,
  broken: null,
  previousSeriesId: null,
  createdAt: '2026-06-20T09:00:00.000Z',
  updatedAt: '2026-06-20T09:00:00.000Z',
  counts: { created: 9, queued: 8, published: 1, failed: 0, drafts: 0 },
  nextOccurrences: [
    { index: 1, publishDate: '2099-07-01T07:00:00.000Z', posts: [{ postId: 'p2', integration: 'tg', state: 'QUEUE' }] },
    { index: 2, publishDate: '2099-07-06T07:00:00.000Z', posts: [{ postId: 'p3', integration: 'tg', state: 'QUEUE' }] },
  ],
};

let calls: Call[] = [];
function serve(extra: Record<string, () => unknown> = {}) {
  calls = [];
  fetchMock.mockImplementation(
    apiFetch(
      {
        'GET /posts/p2': () => post,
        'GET /posts/p2/missing': () => ({ ready: true, missing: [] }),
        'GET /series/s1': () => series,
        'GET /integrations': () => [channel({ id: 'tg', name: 'Acme News', identifier: 'telegram' })],
        ...extra,
      },
      calls,
    ),
  );
}
const open = () => renderPage(<PostDetailPage />, { path: '/posts/:id', route: '/posts/p2', extraRoutes: [{ path: '/calendar', element: <p>Calendar page</p> }] });

afterEach(() => fetchMock.mockReset());

describe('the Repeating panel of a post', () => {
  it('shows the rule and what comes next, and edits this and following through PATCH /series/{id}', async () => {
    let patched = 0;
    serve({
      'PATCH /series/s1': () => {
        patched += 1;
        if (patched === 1) return apiError(400, 'VALIDATION_FAILED', 'rule.time: Use HH:mm', [{ path: 'rule.time', message: 'Use HH:mm' }]);
        return { series: { ...series, id: 's2' }, occurrences: [{ index: 0, publishDate: '2026-07-01T08:30:00.000Z', posts: [{ postId: 'p9', integration: 'tg', state: 'QUEUE' }] }], endedSeriesId: 's1', deleted: ['p2', 'p3'] };
      },
    });
    open();
    const panel = (await screen.findByRole('heading', { level: 2, name: 'Repeating' })).closest('section')!;
    expect(await within(panel).findByText('Every week on Mon, Wed at 09:00 Europe/Berlin, 10 times')).toBeTruthy();
    expect(within(panel).getByText('Active')).toBeTruthy();
    expect(within(panel).getByRole('link', { name: 'See all repeating posts' }).getAttribute('href')).toBe('/autopilot/repeating#series-s1');

    await userEvent.click(within(panel).getByRole('button', { name: 'Edit this and following' }));
    const form = within(panel).getByRole('form', { name: 'Edit this and following' });
    const time = within(form).getByLabelText<HTMLInputElement>('Time (Europe/Berlin)');
    expect(time.value).toBe('09:00');
    await userEvent.clear(time);
    await userEvent.type(time, '10:30');
    await userEvent.click(within(form).getByRole('checkbox', { name: 'Friday' }));
    const text = within(form).getByLabelText<HTMLTextAreaElement>('Text');
    expect(text.value).toBe('Weekly tips');
    await userEvent.clear(text);
    await userEvent.type(text, 'Weekly tips, now on Fridays');

    await userEvent.click(within(form).getByRole('button', { name: 'Save this and following' }));
    // the API's refusal of a rule field shows on it
    expect(await within(form).findByText('Use HH:mm')).toBeTruthy();
    expect(time.getAttribute('aria-invalid')).toBe('true');

    await userEvent.click(within(form).getByRole('button', { name: 'Save this and following' }));
    await waitFor(() => expect(patched).toBe(2));
    const body = calls.filter((c) => c.method === 'PATCH').at(-1)!.body;
    expect(body).toEqual({
      scope: 'following',
      fromPostId: 'p2',
      // starts on this post's day; the 10 posts less the one before it
      rule: { frequency: 'weekly', interval: 1, weekdays: ['MO', 'WE', 'FR'], time: '10:30', timeZone: 'Europe/Berlin', startDate: '2026-07-01', count: 9 },
      posts: [{ integration: { id: 'tg' }, value: [{ content: '<p>Weekly tips, now on Fridays</p>', image: [], delay: 0 }], settings: { __type: 'telegram' } }],
    });
    // this post was replaced: the page goes to the new series' first post
    await waitFor(() => expect(screen.getByTestId('location').textContent).toContain('/posts/p9'));
  });

  it('sends only the rule when only the time changes', async () => {
    serve({ 'PATCH /series/s1': () => ({ series, occurrences: [], endedSeriesId: 's1', deleted: [] }) });
    open();
    const panel = (await screen.findByRole('heading', { level: 2, name: 'Repeating' })).closest('section')!;
    await userEvent.click(await within(panel).findByRole('button', { name: 'Edit this and following' }));
    const time = within(panel).getByLabelText('Time (Europe/Berlin)');
    await userEvent.clear(time);
    await userEvent.type(time, '08:00');
    await userEvent.click(within(panel).getByRole('button', { name: 'Save this and following' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'PATCH')).toBe(true));
    const body = calls.find((c) => c.method === 'PATCH')!.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('posts');
    expect(body['rule']).toMatchObject({ time: '08:00', weekdays: ['MO', 'WE'] });
  });

  it('stops repeating after a question that says published posts stay', async () => {
    serve({ 'DELETE /series/s1': () => ({ id: 's1', deleted: ['p2', 'p3'], kept: 1 }) });
    open();
    const panel = (await screen.findByRole('heading', { level: 2, name: 'Repeating' })).closest('section')!;
    await userEvent.click(await within(panel).findByRole('button', { name: 'Stop repeating' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Stop repeating?' });
    expect(ask.textContent).toContain('Published posts stay');
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    await userEvent.click(within(ask).getByRole('button', { name: 'Stop repeating' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/series/s1')).toBe(true));
    // this queued post went with the series
    expect(await screen.findByText('Calendar page')).toBeTruthy();
  });

  it('is absent for a post that does not repeat, and says so when the series was stopped', async () => {
    serve({ 'GET /series/s1': () => apiError(404, 'NOT_FOUND', 'Series not found') });
    open();
    const panel = (await screen.findByRole('heading', { level: 2, name: 'Repeating' })).closest('section')!;
    expect(await within(panel).findByText(/repeating post that has since been stopped/)).toBeTruthy();
    expect(within(panel).queryByRole('button', { name: 'Stop repeating' })).toBeNull();
  });
});
