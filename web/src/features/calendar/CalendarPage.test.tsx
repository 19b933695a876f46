import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryRouter, useLocation } from 'react-router';
import { MeProvider, type Me } from '../../api/session.js';
import CalendarPage from './CalendarPage.js';
import { localeFirstDay } from './calendarModel.js';

// openapi-fetch keeps the fetch it found when the client was created (at import): the stand-in
// for the API is installed before any import and answers through `server.answer`.
const server = vi.hoisted(() => {
  const holder: { answer: (req: Request) => Promise<Response> } = { answer: () => Promise.reject(new Error('no answer set')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.answer(input instanceof Request ? input : new Request(input, init)));
  return holder;
});

const ME: Me = {
  user: { id: 'u1', email: 'olga@example.test', name: 'Olga', timezone: 'Europe/Berlin' },
  organization: { id: 'o1', name: 'Acme', role: 'owner' },
  organizations: [{ id: 'o1', name: 'Acme', role: 'owner' }],
  csrfToken: 'csrf',
};

const CHANNELS = [
  { id: 'tg', name: 'Acme News', identifier: 'telegram', picture: null, disabled: false, profile: 'acmenews', customer: { id: 'cust1', name: 'Acme Corp' }, refreshNeeded: false, postingTimes: [], settings: {}, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z' },
  { id: 'sky', name: 'Acme Sky', identifier: 'bluesky', picture: null, disabled: false, profile: 'acme.bsky.social', refreshNeeded: false, postingTimes: [], settings: {}, createdAt: '2025-01-01T00:00:00.000Z', updatedAt: '2025-01-01T00:00:00.000Z' },
];

function apiPost(id: string, state: string, channel: (typeof CHANNELS)[number], content: string, publishDate: string) {
  return {
    id,
    content,
    publishDate,
    releaseURL: null,
    releaseId: null,
    state,
    intervalInDays: null,
    group: `g-${id}`,
    creationMethod: 'web',
    settings: {},
    tags: [],
    integration: { id: channel.id, providerIdentifier: channel.identifier, name: channel.name, picture: null },
    image: [],
    error: null,
    delay: 0,
    publishedAt: null,
    thread: [],
    createdAt: '2025-03-01T00:00:00.000Z',
    updatedAt: '2025-03-01T00:00:00.000Z',
  };
}

const POSTS = [
  apiPost('p1', 'QUEUE', CHANNELS[0]!, '<p>Spring <em>launch</em> &amp; party</p><p>details</p>', '2025-03-05T09:00:00.000Z'),
  apiPost('p2', 'DRAFT', CHANNELS[1]!, 'Draft about pricing', '2025-03-06T14:30:00.000Z'),
];

let requests: URL[];
let postsAnswer: () => Response;

function json(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

beforeEach(() => {
  requests = [];
  postsAnswer = () => json({ posts: POSTS });
  server.answer = (req) => {
    const url = new URL(req.url);
    requests.push(url);
    if (url.pathname === '/public/v1/integrations') return Promise.resolve(json(CHANNELS));
    if (url.pathname === '/public/v1/groups') return Promise.resolve(json([{ id: 'cust1', name: 'Acme Corp' }]));
    if (url.pathname === '/public/v1/posts') return Promise.resolve(postsAnswer());
    return Promise.resolve(json({ statusCode: 404, code: 'ROUTE_NOT_FOUND', message: 'No such route', requestId: 'r' }, 404));
  };
});

function Where() {
  const loc = useLocation();
  return <output data-testid="where">{loc.search}</output>;
}

function renderAt(url: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MeProvider me={ME}>
        <MemoryRouter initialEntries={[url]}>
          <CalendarPage />
          <Where />
        </MemoryRouter>
      </MeProvider>
    </QueryClientProvider>,
  );
}

describe('the calendar page', () => {
  it('asks for the visible week in the person’s zone and lists the posts with channel, state and first line', async () => {
    renderAt('/calendar?view=list&date=2025-03-05');
    await screen.findByText('Spring launch & party');
    // the week of Wednesday 5 March 2025 from midnight in Berlin (UTC+1), asked for once: the range
    // computed before FullCalendar lays out is the one its datesSet reports
    const ranges = new Set(requests.filter((u) => u.pathname === '/public/v1/posts').map((u) => `${u.searchParams.get('startDate')}/${u.searchParams.get('endDate')}`));
    const sunday = localeFirstDay() === 0;
    expect([...ranges]).toEqual([sunday ? '2025-03-01T23:00:00.000Z/2025-03-08T23:00:00.000Z' : '2025-03-02T23:00:00.000Z/2025-03-09T23:00:00.000Z']);
    expect(screen.getByText('Draft about pricing')).toBeTruthy();
    expect(screen.getByText(/Times in/).textContent).toContain('Europe/Berlin');
    const queued = screen.getByText('Spring launch & party').closest('.cal-event')!;
    expect(within(queued as HTMLElement).getByText('Queued')).toBeTruthy();
    expect(within(queued as HTMLElement).getByText('Acme News')).toBeTruthy();
    expect(queued.getAttribute('title')).toContain('2025-03-05 09:00 UTC');
  });

  it('the state filter hides the other states and is kept in the URL', async () => {
    const user = userEvent.setup();
    renderAt('/calendar?view=list&date=2025-03-05');
    await screen.findByText('Draft about pricing');
    await user.click(screen.getByRole('checkbox', { name: 'Queued' }));
    await waitFor(() => expect(screen.queryByText('Spring launch & party')).toBeNull());
    expect(screen.getByText('Draft about pricing')).toBeTruthy();
    expect(screen.getByTestId('where').textContent).toContain('state=draft');
    expect(screen.getByTestId('where').textContent).not.toContain('state=queue');
  });

  it('the channel filter keeps the ticked channels’ posts', async () => {
    const user = userEvent.setup();
    renderAt('/calendar?view=list&date=2025-03-05');
    await screen.findByText('Draft about pricing');
    await user.click(screen.getByRole('button', { name: /All channels/ }));
    await user.click(await screen.findByRole('checkbox', { name: /Acme Sky/ }));
    await waitFor(() => expect(screen.queryByText('Draft about pricing')).toBeNull());
    expect(screen.getByText('Spring launch & party')).toBeTruthy();
    expect(screen.getByTestId('where').textContent).toContain('channel=tg');
    expect(screen.getByRole('button', { name: /Acme News/ })).toBeTruthy();
    // the one channel left cannot be unticked (no channel at all would read as every channel)
    expect(screen.getByRole<HTMLInputElement>('checkbox', { name: /Acme News/ }).disabled).toBe(true);
  });

  it('opens with the filters of the URL; a client group is asked of the API', async () => {
    renderAt('/calendar?view=list&date=2025-03-05&group=cust1&state=queue');
    await screen.findByText('Spring launch & party');
    expect(screen.queryByText('Draft about pricing')).toBeNull();
    expect(screen.getByLabelText<HTMLSelectElement>('Client group').value).toBe('cust1');
    expect(requests.find((u) => u.pathname === '/public/v1/posts')!.searchParams.get('customer')).toBe('cust1');
  });

  it('shows the API’s refusal when the posts cannot be loaded', async () => {
    postsAnswer = () => json({ statusCode: 400, code: 'VALIDATION_FAILED', message: 'startDate must be before endDate', requestId: 'r' }, 400);
    renderAt('/calendar?view=list&date=2025-03-05');
    expect(await screen.findByText('startDate must be before endDate')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeTruthy();
  });

  it('marks the occurrences of a repeating post, and only those, as "Repeating"', async () => {
    postsAnswer = () => json({ posts: [{ ...POSTS[0]!, seriesId: 's1', intervalInDays: null }, { ...POSTS[1]!, seriesId: null }] });
    renderAt('/calendar?view=month&date=2025-03-05');
    const repeating = (await screen.findByText('Spring launch & party')).closest('.cal-event') as HTMLElement;
    expect(within(repeating).getByRole('img', { name: 'Repeating' })).toBeTruthy();
    expect(repeating.getAttribute('title')).toContain('Repeating');
    const single = screen.getByText('Draft about pricing').closest('.cal-event') as HTMLElement;
    expect(within(single).queryByRole('img', { name: 'Repeating' })).toBeNull();
  });

  it('says when nothing is planned', async () => {
    postsAnswer = () => json({ posts: [] });
    renderAt('/calendar?view=list&date=2025-03-05');
    expect(await screen.findByText(/Nothing planned this week/)).toBeTruthy();
  });
});
