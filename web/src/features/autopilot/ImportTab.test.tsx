import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { apiError, channel, json, renderPage } from '../../test/kit.js';
import type { DryRun } from './ImportModel.js';
import { ImportTab } from './ImportTab.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

interface Sent {
  method: string;
  path: string;
  search: URLSearchParams;
  contentType: string | null;
  csrf: string | null;
  text: string;
}

type Handler = (sent: Sent) => unknown;

/** A fake API that keeps each request's raw body (a CSV file is not JSON). */
function serve(routes: Record<string, Handler>) {
  const calls: Sent[] = [];
  net.fetch = async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const url = new URL(req.url);
    const path = url.pathname.replace(/^\/public\/v1/, '');
    const sent: Sent = { method: req.method, path, search: url.searchParams, contentType: req.headers.get('content-type'), csrf: req.headers.get('x-csrf-token'), text: req.method === 'GET' ? '' : await req.text() };
    calls.push(sent);
    const key = Object.keys(routes).find((k) => {
      const [m, p] = k.split(' ') as [string, string];
      return m === req.method && new RegExp(`^${p.replace(/:[a-z]+/gi, '[^/]+')}$`).test(path);
    });
    if (!key) return apiError(404, 'ROUTE_NOT_FOUND', `No route ${req.method} ${path}`);
    const out = routes[key]!(sent);
    return out instanceof Response ? out : json(out);
  };
  return calls;
}

const channels = [channel({ id: 'ch-x', name: 'X main', identifier: 'x' }), channel({ id: 'ch-bsky', name: 'Bluesky', identifier: 'bluesky' })];
const X = { id: 'ch-x', name: 'X main', identifier: 'x' };
const BSKY = { id: 'ch-bsky', name: 'Bluesky', identifier: 'bluesky' };

const CSV = 'channel,date,text\nX main,2031-01-05T09:00:00Z,Hello\nNope,2031-01-06,Second\nBluesky,2031-01-07T09:00:00Z,Third\n';

const withProblems: DryRun = {
  dryRun: true,
  valid: false,
  rows: [
    { row: 1, group: 'g1', channel: X, date: '2031-01-05T09:00:00.000Z', type: 'schedule', position: 0, text: 'Hello' },
    { row: 2, group: 'g2', channel: null, date: null, type: 'schedule', position: 0, text: 'Second' },
    { row: 3, group: 'g3', channel: BSKY, date: '2031-01-07T09:00:00.000Z', type: 'draft', position: 0, text: 'Third' },
  ],
  problems: [
    { row: 2, column: 'channel', message: 'no channel named "Nope"' },
    { row: 2, column: 'date', message: 'needs an offset or a timezone' },
  ],
};

const clean: DryRun = {
  dryRun: true,
  valid: true,
  rows: [
    { row: 1, group: 'g1', channel: X, date: '2031-01-05T09:00:00.000Z', type: 'schedule', position: 0, text: 'Hello' },
    { row: 2, group: 'g1', channel: BSKY, date: '2031-01-05T09:00:00.000Z', type: 'schedule', position: 0, text: 'Hello' },
    { row: 3, group: 'g2', channel: X, date: '2031-01-07T09:00:00.000Z', type: 'schedule', position: 0, text: 'A thread' },
    { row: 4, group: 'g2', channel: X, date: '2031-01-07T09:00:00.000Z', type: 'schedule', position: 1, text: 'its reply' },
  ],
  problems: [],
};

const csvFile = (text = CSV, name = 'posts.csv') => new File([text], name, { type: 'text/csv' });

beforeEach(() => {
  vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: vi.fn(() => 'blob:fake'), revokeObjectURL: vi.fn() }));
});
afterEach(() => {
  vi.useRealTimers();
});

describe('import', () => {
  it('a dry run with problems shows each row and each problem by column, highlighted, and keeps Import disabled', async () => {
    const user = userEvent.setup();
    const calls = serve({ 'GET /integrations': () => channels, 'POST /imports': () => withProblems });
    renderPage(<ImportTab />);

    const importButton = screen.getByRole('button', { name: /^Import/ });
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Check file' }).disabled).toBe(true);
    await user.upload(screen.getByLabelText('File to import'), csvFile());
    expect(screen.getByText('posts.csv')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Check file' }));

    const table = await screen.findByRole('table', { name: /Rows of posts\.csv/ });
    const post = calls.find((c) => c.method === 'POST')!;
    expect(post.path).toBe('/imports');
    expect(post.search.get('dryRun')).toBe('true');
    expect(post.contentType).toBe('text/csv');
    expect(post.text).toBe(CSV);

    expect(screen.getByText(/2 rows ready, 1 row with problems/)).toBeTruthy();
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(3);
    // the person's zone (Europe/Berlin): 09:00 UTC is 10:00
    expect(within(rows[0]!).getByText(/10:00/)).toBeTruthy();
    expect(within(rows[0]!).getByText('X main')).toBeTruthy();
    expect(within(rows[0]!).getByText('Ready')).toBeTruthy();
    const bad = rows[1]!;
    expect(bad.classList.contains('import-row-bad')).toBe(true);
    expect(within(bad).getByRole('rowheader').textContent).toMatch('2');
    const items = within(bad).getAllByRole('listitem').map((li) => li.textContent);
    expect(items).toEqual(['channel: no channel named "Nope"', 'date: needs an offset or a timezone']);
    expect(bad.querySelector('[data-label="Channel"]')!.classList.contains('import-cell-bad')).toBe(true);
    expect(bad.querySelector('[data-label="Date"]')!.classList.contains('import-cell-bad')).toBe(true);
    expect(bad.querySelector('[data-label="Text"]')!.classList.contains('import-cell-bad')).toBe(false);
    expect(within(rows[2]!).getByText('Draft')).toBeTruthy();

    expect((importButton as HTMLButtonElement).disabled).toBe(true);
    await user.click(importButton);
    expect(calls.filter((c) => c.method === 'POST')).toHaveLength(1);

    // only the rows with problems
    await user.click(screen.getByLabelText('Show only rows with problems'));
    expect(within(table).getAllByRole('row')).toHaveLength(2);
  });

  it('a clean dry run enables Import, which sends the same file without dryRun and links to the calendar at the first date', async () => {
    const user = userEvent.setup();
    const calls = serve({
      'GET /integrations': () => channels,
      'POST /imports': (s) => (s.search.get('dryRun') === 'true' ? clean : json({ id: 'imp-1', status: 'completed', rows: 4, created: { groups: 2, posts: 3 } }, 201)),
    });
    renderPage(<ImportTab />);
    const ndjson = '{"channel":"X main","date":"2031-01-05T09:00:00Z","text":"Hello"}\n';
    await user.upload(screen.getByLabelText('File to import'), new File([ndjson], 'posts.ndjson', { type: '' }));
    await user.click(screen.getByRole('button', { name: 'Check file' }));

    expect(await screen.findByText(/4 rows ready — 3 posts in 2 groups/)).toBeTruthy();
    const importButton = screen.getByRole('button', { name: 'Import 3 posts' });
    expect((importButton as HTMLButtonElement).disabled).toBe(false);
    await user.click(importButton);

    expect(await screen.findByText(/Imported 3 posts in 2 groups/)).toBeTruthy();
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[1]!.search.has('dryRun')).toBe(false);
    expect(posts[1]!.text).toBe(ndjson);
    expect(posts[1]!.contentType).toBe('application/x-ndjson');
    expect(screen.getByRole('link', { name: /See them in the calendar/ }).getAttribute('href')).toBe('/calendar?date=2031-01-05');
    // the file is spent: importing again takes a file and a new check
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Import posts' }).disabled).toBe(true);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Check file' }).disabled).toBe(true);
  });

  it('a 202 shows the progress of the background import until it is done', async () => {
    const user = userEvent.setup();
    let polls = 0;
    const job = (status: string, done: number) => ({ id: 'imp-9', status, format: 'csv', progress: { done, total: 2500 }, created: status === 'completed' ? { groups: 2500, posts: 2500 } : { groups: 0, posts: 0 }, problems: [], createdAt: '2030-01-01T00:00:00Z', completedAt: null });
    const calls = serve({
      'GET /integrations': () => channels,
      'POST /imports': (s) => (s.search.get('dryRun') === 'true' ? clean : json(job('pending', 0), 202)),
      'GET /imports/:id': () => {
        polls += 1;
        return polls === 1 ? job('running', 1000) : job('completed', 2500);
      },
    });
    renderPage(<ImportTab />);
    await user.upload(screen.getByLabelText('File to import'), csvFile());
    await user.click(screen.getByRole('button', { name: 'Check file' }));
    await user.click(await screen.findByRole('button', { name: 'Import 3 posts' }));

    const bar = await screen.findByRole('progressbar', { name: 'Import progress' });
    await waitFor(() => expect((bar as HTMLProgressElement).value).toBe(1000));
    expect(bar.getAttribute('max')).toBe('2500');
    expect(screen.getByText('1,000 of 2,500 rows done')).toBeTruthy();
    expect(await screen.findByText(/Imported 2,500 posts in 2,500 groups/, {}, { timeout: 4000 })).toBeTruthy();
    expect(screen.queryByRole('progressbar')).toBeNull();
    expect(calls.filter((c) => c.path === '/imports/imp-9').length).toBe(2);
  }, 15_000);

  it('a refusal of the real import (changed since the check) lists each row and column; a failed background import lists its problems', async () => {
    const user = userEvent.setup();
    let attempt = 0;
    serve({
      'GET /integrations': () => channels,
      'POST /imports': (s) => {
        if (s.search.get('dryRun') === 'true') return clean;
        attempt += 1;
        return attempt === 1
          ? apiError(400, 'VALIDATION_FAILED', 'The file has problems', [{ path: 'rows.2.channel', message: 'the channel was deleted' }])
          : json({ id: 'imp-2', status: 'pending', format: 'csv', progress: { done: 0, total: 4 }, created: { groups: 0, posts: 0 }, problems: [], createdAt: '2030-01-01T00:00:00Z', completedAt: null }, 202);
      },
      'GET /imports/:id': () => ({ id: 'imp-2', status: 'failed', format: 'csv', progress: { done: 2, total: 4 }, created: { groups: 0, posts: 0 }, problems: [{ row: 3, column: 'text', message: 'too long for X' }], createdAt: '2030-01-01T00:00:00Z', completedAt: '2030-01-01T00:01:00Z' }),
    });
    renderPage(<ImportTab />);
    await user.upload(screen.getByLabelText('File to import'), csvFile());
    await user.click(screen.getByRole('button', { name: 'Check file' }));
    await user.click(await screen.findByRole('button', { name: 'Import 3 posts' }));
    const refused = await screen.findByText(/Nothing was imported: The file has problems/);
    expect(refused.textContent).toContain('Row 2, channel: the channel was deleted');

    await user.click(screen.getByRole('button', { name: 'Import 3 posts' }));
    const failed = await screen.findByText(/The import failed; nothing was created/);
    expect(failed.closest('.notice')!.textContent).toContain('Row 3, text: too long for X');
  });

  it('a refusal of the whole file (too big) is shown as a notice', async () => {
    const user = userEvent.setup();
    serve({ 'GET /integrations': () => channels, 'POST /imports': () => apiError(413, 'PAYLOAD_TOO_LARGE', 'The body is larger than 5242880 bytes') });
    renderPage(<ImportTab />);
    await user.upload(screen.getByLabelText('File to import'), csvFile());
    await user.click(screen.getByRole('button', { name: 'Check file' }));
    expect((await screen.findByRole('alert')).textContent).toMatch('The body is larger than 5242880 bytes');
    expect(screen.queryByRole('table', { name: /Rows of/ })).toBeNull();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Import posts' }).disabled).toBe(true);
  });
});

describe('export', () => {
  it('downloads the chosen window and format with the session, as a file', async () => {
    const user = userEvent.setup();
    const calls = serve({ 'GET /integrations': () => channels, 'GET /exports/posts': () => new Response('[]', { headers: { 'content-type': 'application/json' } }) });
    const clicks: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    renderPage(<ImportTab />);
    const from = screen.getByLabelText('First day');
    const to = screen.getByLabelText('Last day');
    expect((from as HTMLInputElement).value).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    await user.clear(from);
    await user.type(from, '2031-03-01');
    await user.clear(to);
    await user.type(to, '2031-03-31');
    await user.click(screen.getByLabelText('JSON'));
    await user.click(screen.getByRole('button', { name: 'Download' }));

    expect(await screen.findByText('Saved tidings-posts-2031-03-01-to-2031-03-31.json.')).toBeTruthy();
    const get = calls.find((c) => c.path === '/exports/posts')!;
    // whole days in Europe/Berlin (UTC+1 in March before the switch)
    expect(get.search.get('startDate')).toBe('2031-02-28T23:00:00.000Z');
    expect(get.search.get('endDate')).toBe('2031-03-31T21:59:59.999Z');
    expect(get.search.get('format')).toBe('json');
    expect(clicks).toEqual(['tidings-posts-2031-03-01-to-2031-03-31.json']);
    click.mockRestore();
  });

  it('refuses a window that ends before it starts', async () => {
    const user = userEvent.setup();
    const calls = serve({ 'GET /integrations': () => channels });
    renderPage(<ImportTab />);
    await user.clear(screen.getByLabelText('First day'));
    await user.type(screen.getByLabelText('First day'), '2031-03-10');
    await user.clear(screen.getByLabelText('Last day'));
    await user.type(screen.getByLabelText('Last day'), '2031-03-01');
    await user.click(screen.getByRole('button', { name: 'Download' }));
    expect(await screen.findByText('The last day is before the first.')).toBeTruthy();
    expect(calls.some((c) => c.path === '/exports/posts')).toBe(false);
  });
});
