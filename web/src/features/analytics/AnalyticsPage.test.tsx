import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, channel as channelFixture, renderPage, type Call } from '../../test/kit.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});
// chart.js draws on a canvas happy-dom does not have: the chart shows the data it was given
vi.mock('./MetricChart.js', async () => {
  const { toChartData } = await import('./analytics-data.js');
  return {
    default: ({ series, timeZone }: { series: Parameters<typeof toChartData>[0]; timeZone: string }) => <pre data-testid="chart">{JSON.stringify(toChartData(series, timeZone, 'en-GB'))}</pre>,
  };
});

const { default: AnalyticsPage } = await import('./AnalyticsPage.js');

const channel = (id: string, identifier: Parameters<typeof channelFixture>[0]['identifier'], name: string) => channelFixture({ id, identifier, name, profile: name.toLowerCase() });
const post = (id: string, integrationId: string, state: string, publishedAt: string | null, content: string) => ({
  id,
  content,
  publishDate: publishedAt ?? '2025-03-05T00:00:00.000Z',
  publishedAt,
  releaseURL: publishedAt ? `https://bsky.app/profile/acme/post/${id}` : null,
  releaseId: publishedAt ? id : null,
  state,
  integration: { id: integrationId, providerIdentifier: 'bluesky', name: 'Acme', picture: null },
});

let calls: Call[] = [];
function serve() {
  calls = [];
  fetchMock.mockImplementation(
    apiFetch(
      {
        'GET /integrations': () => [channel('tg', 'telegram', 'Acme News'), channel('sky', 'bluesky', 'Acme')],
        'GET /analytics/tg': () => [],
        'GET /analytics/sky': (_req, url) => [
          {
            label: 'Followers',
            percentageChange: url.searchParams.get('date') === '7' ? -2.5 : 20,
            data: [
              { total: 120, date: '2025-03-02' },
              { total: 100, date: '2025-03-01' },
            ],
          },
          { label: 'Posts', percentageChange: 0, data: [{ total: '42', date: '2025-03-02' }] },
        ],
        'GET /analytics/overview': (_req, url) => ({
          days: Number(url.searchParams.get('days')),
          from: '2025-02-01T00:00:00.000Z',
          to: '2025-03-03T00:00:00.000Z',
          channels: [
            { id: 'tg', name: 'Acme News', identifier: 'telegram', platform: 'Telegram', picture: null, disabled: false, posts: 1, reach: null, impressions: null, engagement: null, engagementFrom: null, unavailable: null },
            { id: 'sky', name: 'Acme', identifier: 'bluesky', platform: 'Bluesky', picture: null, disabled: false, posts: 2, reach: null, impressions: 0, engagement: 14, engagementFrom: 'posts', unavailable: null },
          ],
          best: { id: 'b', integrationId: 'sky', excerpt: 'Newer one', publishDate: '2025-03-02T10:00:00.000Z', releaseURL: null, engagement: 9 },
          worst: null,
          postsMeasured: 2,
        }),
        'GET /posts': () => ({
          posts: [
            post('a', 'sky', 'PUBLISHED', '2025-03-01T10:00:00.000Z', '<p>Older <b>one</b></p>'),
            post('b', 'sky', 'PUBLISHED', '2025-03-02T10:00:00.000Z', 'Newer one'),
            post('c', 'sky', 'QUEUE', null, 'Not yet'),
            post('d', 'tg', 'PUBLISHED', '2025-03-02T11:00:00.000Z', 'Other channel'),
          ],
        }),
      },
      calls,
    ),
  );
}

afterEach(() => fetchMock.mockReset());

describe('analytics page', () => {
  it('opens on the overview across channels: totals, a row per channel with "not reported" (a reported 0 stays 0), the best post, the CSV, and a channel one click away', async () => {
    serve();
    renderPage(<AnalyticsPage />, { path: '/analytics', route: '/analytics' });
    await screen.findByRole('heading', { name: 'All channels, last 30 days' });
    expect(calls.find((c) => c.path === '/analytics/overview')!.search.get('days')).toBe('30');
    const tg = document.querySelector('tr[data-channel="tg"]')!;
    expect(tg.textContent).toContain('Acme News');
    expect(tg.querySelectorAll('.not-reported')).toHaveLength(3);
    const sky = document.querySelector('tr[data-channel="sky"]')!;
    expect([...sky.querySelectorAll('td')].map((td) => td.textContent)).toEqual(['2', 'not reported', '0', '14 (its posts)']);
    expect(screen.getByRole('img', { name: 'Acme News on Telegram' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Newer one' }).getAttribute('href')).toBe('/posts/b');
    expect(screen.getByRole('link', { name: 'Export CSV' }).getAttribute('href')).toBe('/public/v1/analytics/overview.csv?days=30');
    await userEvent.click(screen.getByRole('button', { name: /Acme News/ }));
    await screen.findByText(/Telegram does not report figures to Tidings/);
    expect(screen.getByTestId('location').textContent).toBe('/analytics?channel=tg');
  });

  it('a channel whose platform reports nothing says so', async () => {
    serve();
    renderPage(<AnalyticsPage />, { path: '/analytics', route: '/analytics?channel=tg' });
    await screen.findByText(/Telegram does not report figures to Tidings/);
    expect(calls.find((c) => c.path === '/analytics/tg')!.search.get('date')).toBe('30');
  });

  it('one card per metric: latest figure, change, the chart’s data in date order and every number in a table; the period switches', async () => {
    serve();
    renderPage(<AnalyticsPage />, { path: '/analytics', route: '/analytics?channel=sky' });
    const followers = await screen.findByRole('article', { name: 'Followers' });
    expect(followers.querySelector('.metric-value')?.textContent).toBe('120');
    expect(followers.textContent).toContain('+20%');
    const chart = JSON.parse((await within(followers).findByTestId('chart')).textContent ?? '') as { labels: string[]; datasets: { data: number[] }[] };
    expect(chart).toEqual({ labels: ['1 Mar 2025', '2 Mar 2025'], ticks: ['1 Mar', '2 Mar'], datasets: [{ label: 'Followers', data: [100, 120] }] });
    const rows = within(followers).getAllByRole('row').map((r) => r.textContent);
    expect(rows).toHaveLength(3);
    // one point is a figure: no chart, no made-up change
    const posts = screen.getByRole('article', { name: 'Posts' });
    expect(posts.querySelector('.metric-value')?.textContent).toBe('42');
    expect(within(posts).queryByTestId('chart')).toBeNull();
    expect(posts.textContent).not.toContain('%');

    await userEvent.click(screen.getByRole('radio', { name: '7 days' }));
    await waitFor(() => expect(followers.textContent).toContain('\u22122.5%'));
    expect(calls.filter((c) => c.path === '/analytics/sky').map((c) => c.search.get('date'))).toEqual(['30', '7']);
    expect(screen.getByTestId('location').textContent).toBe('/analytics?channel=sky&days=7');
  });

  it('the channel’s published posts of the period, newest first, link to their detail pages', async () => {
    serve();
    renderPage(<AnalyticsPage />, { path: '/analytics', route: '/analytics?channel=sky&days=90' });
    const section = (await screen.findByRole('heading', { name: 'Published posts, last 90 days' })).closest('section')!;
    const links = await within(section).findAllByRole('link', { name: /one/ });
    expect(links.map((a) => [a.textContent, a.getAttribute('href')])).toEqual([
      ['Newer one', '/posts/b'],
      ['Older one', '/posts/a'],
    ]);
    expect(section.textContent).not.toContain('Not yet');
    expect(section.textContent).not.toContain('Other channel');
    const span = calls.find((c) => c.path === '/posts')!.search;
    expect(Date.parse(span.get('endDate')!) - Date.parse(span.get('startDate')!)).toBe(90 * 86_400_000);
  });

  it('a platform failure is shown in its words', async () => {
    serve();
    const stub = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (input, init) => {
      const req = input instanceof Request ? input : new Request(input, init);
      if (new URL(req.url).pathname.endsWith('/analytics/sky')) return apiError(502, 'PLATFORM_UNREACHABLE', 'Bluesky could not be reached');
      return stub(input, init);
    });
    renderPage(<AnalyticsPage />, { path: '/analytics', route: '/analytics?channel=sky' });
    await screen.findByText('Bluesky could not be reached');
  });
});
