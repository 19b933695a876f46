import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, channel, renderPage, type Call } from '../../test/kit.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});
const composed = vi.hoisted(() => ({ opened: 0 }));
vi.mock('../compose/ComposeDialog.js', () => ({
  default: () => {
    composed.opened += 1;
    return <div role="dialog" aria-label="Composer" />;
  },
}));

const { SeriesTab } = await import('./SeriesTab.js');

const template = (ids: string[]) => ({ shortLink: false, tags: [], posts: ids.map((id) => ({ integration: { id }, value: [{ content: '<p>Tip</p>' }] })) });
const base = { type: 'schedule', horizonDays: 30, materializedThrough: null, nextIndex: 3, previousSeriesId: null, createdAt: '2026-06-20T09:00:00.000Z', updatedAt: '2026-06-20T09:00:00.000Z' };
const weekly = { ...base, id: 's1', rule: { frequency: 'weekly', interval: 1, weekdays: ['MO', 'WE'], time: '09:00', timeZone: 'Europe/Berlin', startDate: '2026-06-29', count: 10 }, template: template(['tg', 'sky']), completed: false, broken: null };
const broken = {
  ...base,
  id: 's2',
  type: 'draft',
  rule: { frequency: 'monthly', interval: 1, monthDays: [15], time: '18:00', timeZone: 'Europe/Berlin', startDate: '2026-06-15' },
  template: template(['tg']),
  completed: false,
  broken: { reason: 'The channel "Acme News" is disabled', at: '2026-07-15T16:00:00.000Z' },
};
const detail = (s: typeof weekly | typeof broken, next: { index: number; publishDate: string; postId: string }[]) => ({
  ...s,
  counts: { created: 3, queued: 2, published: 1, failed: 0, drafts: 0 },
  nextOccurrences: next.map((n) => ({ index: n.index, publishDate: n.publishDate, posts: [{ postId: n.postId, integration: 'tg', state: 'QUEUE' }] })),
});

let calls: Call[] = [];
function serve(list: unknown[], extra: Record<string, () => unknown> = {}) {
  calls = [];
  fetchMock.mockImplementation(
    apiFetch(
      {
        'GET /series': () => ({ series: list }),
        'GET /series/s1': () => detail(weekly, [{ index: 1, publishDate: '2099-07-01T07:00:00.000Z', postId: 'p2' }, { index: 2, publishDate: '2099-07-06T07:00:00.000Z', postId: 'p3' }]),
        'GET /series/s2': () => detail(broken, []),
        'GET /integrations': () => [channel({ id: 'tg', name: 'Acme News', identifier: 'telegram' }), channel({ id: 'sky', name: 'Acme Sky', identifier: 'bluesky' })],
        ...extra,
      },
      calls,
    ),
  );
}
const open = () => renderPage(<SeriesTab />, { path: '/autopilot/repeating', route: '/autopilot/repeating' });

afterEach(() => {
  fetchMock.mockReset();
  composed.opened = 0;
});

describe('the repeating posts tab', () => {
  it('lists each series with its rule, channels, next posts and state; a stopped one with its reason', async () => {
    serve([weekly, broken]);
    open();
    const card = (await screen.findByRole('heading', { level: 3, name: 'Every week on Mon, Wed at 09:00 Europe/Berlin, 10 times' })).closest('li')!;
    expect(within(card).getByText('Active')).toBeTruthy();
    expect(within(card).getByText('Acme News (Telegram), Acme Sky (Bluesky)')).toBeTruthy();
    const next = await within(card).findAllByRole('link');
    expect(next.map((a) => a.getAttribute('href'))).toEqual(['/posts/p2', '/posts/p3']);
    expect(next[0]!.textContent).toMatch(/Jul 1, 2099/);
    expect(within(card).getByText(/1 published · 2 queued/)).toBeTruthy();

    const stopped = screen.getByRole('heading', { level: 3, name: 'Every month on day 15 at 18:00 Europe/Berlin' }).closest('li')!;
    expect(within(stopped).getByText('Stopped')).toBeTruthy();
    expect(within(stopped).getByText(/The channel "Acme News" is disabled/)).toBeTruthy();
    expect(within(stopped).getByText('Drafts')).toBeTruthy();
    expect(screen.getByRole('heading', { level: 2, name: 'Completed or stopped (1)' })).toBeTruthy();
  });

  it('a series whose posts are all made is still active while some are to come, completed after', async () => {
    const allMade = { ...weekly, completed: true };
    const ended = { ...weekly, id: 's3', rule: { ...weekly.rule, count: 2 }, completed: true };
    serve([allMade, ended], { 'GET /series/s3': () => detail(ended, []), 'GET /series/s1': () => detail(allMade, [{ index: 9, publishDate: '2099-07-01T07:00:00.000Z', postId: 'p9' }]) });
    open();
    const active = await screen.findByRole('heading', { level: 2, name: 'Active (1)' });
    const card = (await within(active.closest('section')!).findByText(/every post of it is made/i)).closest('li')!;
    expect(within(card).getByRole('heading', { level: 3 }).textContent).toContain('10 times');
    const done = screen.getByRole('heading', { level: 2, name: 'Completed or stopped (1)' }).closest('section')!;
    expect(within(done).getByRole('heading', { level: 3 }).textContent).toContain('2 times');
    expect(within(done).getByText('Completed')).toBeTruthy();
  });

  it('stops a series after asking, and says what went', async () => {
    serve([weekly], { 'DELETE /series/s1': () => ({ id: 's1', deleted: ['p2', 'p3'], kept: 1 }) });
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Stop repeating: Every week on Mon, Wed at 09:00 Europe/Berlin, 10 times' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Stop repeating?' });
    expect(ask.textContent).toContain('Published posts stay');
    await userEvent.click(within(ask).getByRole('button', { name: 'Keep repeating' }));
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);

    await userEvent.click(screen.getByRole('button', { name: /^Stop repeating: Every week/ }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Stop repeating' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.path === '/series/s1')).toBe(true));
    expect(await screen.findByText('Stopped repeating: 2 unpublished posts removed, 1 published kept.')).toBeTruthy();
  });

  it('points to the composer when there is none yet', async () => {
    serve([]);
    open();
    expect(await screen.findByText('No repeating posts yet')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'New repeating post' }));
    expect(await screen.findByRole('dialog', { name: 'Composer' })).toBeTruthy();
  });
});
