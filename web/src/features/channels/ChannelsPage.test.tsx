import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Integration } from '../../api/queries.js';
import { apiError, apiFetch, channel, meFixture, renderPage, type Call, type Routes } from '../../test/kit.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ChannelsPage } = await import('./ChannelsPage.js');

const TELEGRAM_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    botToken: { type: 'string', minLength: 1, pattern: '^\\d+:[A-Za-z0-9_-]{30,}$', description: 'bot token from @BotFather; the bot must be an admin of the chat' },
    chatId: { type: 'string', minLength: 1, description: 'numeric chat id (channels: -100…) or @channelname' },
  },
  required: ['botToken', 'chatId'],
};

let calls: Call[] = [];
let channels: Integration[] = [];
function serve(extra: Routes = {}) {
  calls = [];
  fetchMock.mockImplementation(
    apiFetch(
      {
        'GET /integrations': () => channels,
        'GET /groups': () => [
          { id: 'g-1', name: 'Bakery' },
          { id: 'g-2', name: 'Empty group' },
        ],
        ...extra,
      },
      calls,
    ),
  );
}

beforeEach(() => {
  channels = [
    channel({ id: 'c-1', name: 'Acme News', identifier: 'telegram', profile: '@acmenews', postingTimes: [{ time: 7 * 60 }, { time: 15 * 60 }] }),
    channel({ id: 'c-2', name: 'Bakery Sky', identifier: 'bluesky', profile: 'bakery.bsky.social', customer: { id: 'g-1', name: 'Bakery' }, disabled: true }),
    channel({ id: 'c-3', name: 'Old Masto', identifier: 'mastodon', profile: '@old@mastodon.example', refreshNeeded: true }),
  ];
});
afterEach(() => {
  fetchMock.mockReset();
  vi.unstubAllGlobals();
  vi.stubGlobal('fetch', fetchMock);
});

describe('the channels page', () => {
  it('lists the channels by client group with platform, profile, state, posting times in the person’s zone and the date added', async () => {
    serve();
    renderPage(<ChannelsPage />, { me: meFixture({ timezone: 'America/New_York', role: 'member' }) });
    const bakery = await screen.findByRole('region', { name: 'Bakery' });
    expect(within(bakery).getByText('Bakery Sky')).toBeTruthy();
    expect(within(bakery).getByText(/Bluesky · bakery\.bsky\.social/)).toBeTruthy();
    expect(within(bakery).getByText('Disabled')).toBeTruthy();

    const empty = screen.getByRole('region', { name: 'Empty group' });
    expect(within(empty).getByText(/No channels in this group yet/)).toBeTruthy();

    const rest = screen.getByRole('region', { name: 'Without a client group' });
    const news = within(rest).getByText('Acme News').closest('li')!;
    expect(within(news as HTMLElement).getByText('Active')).toBeTruthy();
    // 07:00 and 15:00 UTC in New York: the offset of the day the page is shown (EST or EDT)
    const times = within(news as HTMLElement).getByRole('list', { name: 'Posting times of Acme News' });
    const shown = within(times)
      .getAllByRole('listitem')
      .map((li) => li.textContent);
    const offset = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'shortOffset' }).format(new Date()).endsWith('-4') ? 4 : 5;
    expect(shown).toEqual([`0${7 - offset}:00`, `${15 - offset}:00`]);
    expect(within(times).getAllByRole('listitem')[0]!.querySelector('time')!.getAttribute('title')).toMatch(/07:00 UTC$/);
    const added = news.querySelector('.ch-created time')!;
    expect(added.getAttribute('title')).toBe('2026-01-15 10:00 UTC');

    const masto = within(rest).getByText('Old Masto').closest('li') as HTMLElement;
    expect(within(masto).getByText('Needs reconnecting')).toBeTruthy();
    expect(within(masto).getByRole('button', { name: 'Reconnect' })).toBeTruthy();
    expect(screen.getByText(/Old Masto needs reconnecting before it can publish again/)).toBeTruthy();
  });

  it('shows the API’s refusal when the list cannot be read, and an empty state when there is nothing', async () => {
    serve({ 'GET /integrations': () => apiError(503, 'SERVICE_UNAVAILABLE', 'The database is not reachable') });
    const first = renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    expect(await screen.findByText('The database is not reachable')).toBeTruthy();
    first.unmount();

    channels = [];
    serve({ 'GET /groups': () => [] });
    renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    expect(await screen.findByText('No channels yet')).toBeTruthy();
  });
});

describe('connecting a channel', () => {
  async function openConnect(user: ReturnType<typeof userEvent.setup>) {
    renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    await screen.findByText('Acme News');
    await user.click(screen.getAllByRole('button', { name: 'Connect a channel' })[0]!);
    return screen.getByRole('dialog', { name: 'Connect a channel' });
  }

  it('lists the 34 platforms; a credential platform gets a form generated from its schema, the API’s errors land on the fields', async () => {
    const user = userEvent.setup();
    let attempts = 0;
    serve({
      'GET /social/telegram': () => ({ url: null, credentials: TELEGRAM_SCHEMA }),
      'POST /social/telegram': (_req, _url, body) => {
        attempts += 1;
        if (attempts === 1) return apiError(400, 'VALIDATION_FAILED', 'botToken: Telegram refused the bot token: Unauthorized', [{ path: 'botToken', message: 'Telegram refused the bot token: Unauthorized' }]);
        return { ...channel({ id: 'c-9', name: 'Acme News 2', identifier: 'telegram', profile: '@acme2' }), received: body };
      },
    });
    const dialog = await openConnect(user);
    expect(within(dialog).getAllByRole('button').filter((b) => b.classList.contains('ch-platform'))).toHaveLength(34);
    await user.type(within(dialog).getByLabelText('Find a platform'), 'tele');
    await user.click(within(dialog).getByRole('button', { name: 'Telegram' }));

    const token = await within(dialog).findByLabelText(/Bot token/);
    expect(token.getAttribute('type')).toBe('password');
    expect(within(dialog).getByText(/Bot token from @BotFather/)).toBeTruthy();
    const chat = within(dialog).getByLabelText(/Chat ID/);
    await user.type(token, '123:wrong');
    await user.type(chat, '@acmenews');
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));

    const error = await within(dialog).findByText('Telegram refused the bot token: Unauthorized');
    expect(token.getAttribute('aria-describedby')).toContain(error.closest('[id]')!.id);
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ botToken: '123:wrong', chatId: '@acmenews' });

    await user.clear(token);
    await user.type(token, '123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw');
    await user.click(within(dialog).getByRole('button', { name: 'Connect' }));
    expect(await within(dialog).findByText('Acme News 2')).toBeTruthy();
    expect(within(dialog).getByText(/Connected/)).toBeTruthy();
    // the list is read again
    expect(calls.filter((c) => c.method === 'GET' && c.path === '/integrations').length).toBeGreaterThan(1);
  });

  it('a platform this deployment cannot connect shows the API’s message', async () => {
    const user = userEvent.setup();
    serve({
      'GET /social/x': () => apiError(400, 'PLATFORM_APP_NOT_CONFIGURED', 'X is not configured on this server: set X_CLIENT_ID and X_CLIENT_SECRET'),
      'GET /social/kick': () => apiError(501, 'PLATFORM_NOT_AVAILABLE', 'Connecting Kick is not available in this version yet'),
    });
    const dialog = await openConnect(user);
    await user.click(within(dialog).getByRole('button', { name: 'X' }));
    expect(await within(dialog).findByText('X is not configured on this server: set X_CLIENT_ID and X_CLIENT_SECRET')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Choose another platform' }));
    await user.click(within(dialog).getByRole('button', { name: 'Kick' }));
    expect(await within(dialog).findByText('Connecting Kick is not available in this version yet')).toBeTruthy();
  });

  it('an OAuth platform opens its page in a popup and finishes when the callback page posts back (same origin only)', async () => {
    const user = userEvent.setup();
    const popup = { closed: false, focus: vi.fn(), close: vi.fn() };
    const open = vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    serve({ 'GET /social/mastodon': (_req, url) => (url.searchParams.get('instanceUrl') === 'https://mastodon.example' ? { url: 'https://mastodon.example/oauth/authorize?state=s1' } : apiError(400, 'VALIDATION_FAILED', 'instanceUrl: Required', [{ path: 'instanceUrl', message: 'Required' }])) });
    const dialog = await openConnect(user);
    await user.click(within(dialog).getByRole('button', { name: 'Mastodon' }));
    await user.type(within(dialog).getByLabelText('Your Mastodon server'), 'https://mastodon.example');
    await user.click(within(dialog).getByRole('button', { name: 'Continue' }));
    await within(dialog).findByText(/Approve Tidings in the Mastodon window/);
    expect(open).toHaveBeenCalledWith('https://mastodon.example/oauth/authorize?state=s1', 'tidings-connect', expect.stringContaining('popup'));

    const message = { type: 'tidings:connected', identifier: 'mastodon', integration: { id: 'c-5', name: 'Alice Example', profile: '@alice@mastodon.example', identifier: 'mastodon' } };
    const before = calls.filter((c) => c.path === '/integrations').length;
    // another origin's message is ignored
    await act(async () => {
      window.dispatchEvent(new MessageEvent('message', { data: message, origin: 'https://evil.example' }));
    });
    expect(within(dialog).queryByText('Alice Example')).toBeNull();
    await act(async () => {
      window.dispatchEvent(new MessageEvent('message', { data: message, origin: window.location.origin }));
    });
    expect(await within(dialog).findByText('Alice Example')).toBeTruthy();
    await waitFor(() => expect(calls.filter((c) => c.path === '/integrations').length).toBeGreaterThan(before));
    open.mockRestore();
  });

  it('a blocked popup offers the page in a new tab that can still report back', async () => {
    const user = userEvent.setup();
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    serve({ 'GET /social/linkedin': () => ({ url: 'https://www.linkedin.com/oauth/v2/authorization?state=s2' }) });
    const dialog = await openConnect(user);
    await user.click(within(dialog).getByRole('button', { name: 'LinkedIn' }));
    const link = await within(dialog).findByRole('link', { name: 'Open LinkedIn in a new tab' });
    expect(link.getAttribute('href')).toBe('https://www.linkedin.com/oauth/v2/authorization?state=s2');
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('opener');
    await act(async () => {
      window.dispatchEvent(new MessageEvent('message', { data: { type: 'tidings:connect-failed', identifier: 'linkedin', code: 'VALIDATION_FAILED', message: 'LinkedIn did not grant access: user_cancelled_login' }, origin: window.location.origin }));
    });
    expect(await within(dialog).findByText('LinkedIn did not grant access: user_cancelled_login')).toBeTruthy();
    open.mockRestore();
  });

  it('reconnecting a credential channel posts with refresh=<id>', async () => {
    const user = userEvent.setup();
    channels[0] = { ...channels[0]!, refreshNeeded: true };
    serve({
      'GET /social/telegram': () => ({ url: null, credentials: TELEGRAM_SCHEMA }),
      'POST /social/telegram': () => channel({ id: 'c-1', name: 'Acme News', identifier: 'telegram' }),
    });
    renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    const row = (await screen.findByText('Acme News')).closest('li') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Reconnect' }));
    const dialog = screen.getByRole('dialog', { name: 'Reconnect Acme News' });
    await user.type(await within(dialog).findByLabelText(/Bot token/), '123456:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw');
    await user.type(within(dialog).getByLabelText(/Chat ID/), '@acmenews');
    await user.click(within(dialog).getByRole('button', { name: 'Reconnect' }));
    await within(dialog).findByText(/Reconnected/);
    const begin = calls.find((c) => c.method === 'GET' && c.path === '/social/telegram')!;
    expect(begin.search.get('refresh')).toBe('c-1');
    expect(calls.find((c) => c.method === 'POST')!.search.get('refresh')).toBe('c-1');
  });
});

describe('managing a channel', () => {
  it('saves posting times typed in the person’s zone as minutes after 00:00 UTC', async () => {
    const user = userEvent.setup();
    serve({ 'PUT /integrations/:id': (_req, _url, body) => ({ ...channels[0]!, ...(body as object) }) });
    renderPage(<ChannelsPage />, { me: meFixture({ timezone: 'Asia/Kolkata', role: 'member' }) });
    const row = (await screen.findByText('Acme News')).closest('li') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Manage Acme News' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Posting times…' }));
    const dialog = screen.getByRole('dialog', { name: 'Posting times of Acme News' });
    // 07:00 UTC is 12:30 in Kolkata (+05:30, no daylight saving)
    await user.click(within(dialog).getByRole('button', { name: 'Remove 12:30' }));
    const input = within(dialog).getByLabelText('Add a time');
    await user.clear(input);
    await user.type(input, '09:00');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    expect(within(dialog).getByText('09:00')).toBeTruthy();
    await user.click(within(dialog).getByRole('button', { name: 'Save posting times' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')).toBeTruthy());
    const put = calls.find((c) => c.method === 'PUT')!;
    expect(put.path).toBe('/integrations/c-1');
    expect(put.body).toEqual({ postingTimes: [{ time: 3 * 60 + 30 }, { time: 15 * 60 }] });
  });

  it('disables and shows the API’s refusal next to the channel', async () => {
    const user = userEvent.setup();
    serve({ 'PUT /integrations/:id': () => apiError(403, 'FORBIDDEN', 'Only owners and admins may change channels') });
    renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    const row = (await screen.findByText('Acme News')).closest('li') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Manage Acme News' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Disable' }));
    expect(await within(row).findByText('Only owners and admins may change channels')).toBeTruthy();
    expect(calls.find((c) => c.method === 'PUT')!.body).toEqual({ disabled: true });
  });

  it('the removal asks first and says what happens to queued posts', async () => {
    const user = userEvent.setup();
    serve({ 'DELETE /integrations/:id': () => channels[0] });
    renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    const row = (await screen.findByText('Acme News')).closest('li') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Manage Acme News' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Remove…' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove Acme News?' });
    expect(within(dialog).getByText(/Posts queued on it will not be published/)).toBeTruthy();
    expect(dialog.textContent).toContain('channel disconnected');
    await user.click(within(dialog).getByRole('button', { name: 'Remove channel' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'DELETE')?.path).toBe('/integrations/c-1'));
  });

  it('lists the pages a LinkedIn page channel reaches and switches to the one chosen', async () => {
    const user = userEvent.setup();
    channels = [channel({ id: 'c-7', name: 'Difference Works', identifier: 'linkedin-page', profile: 'difference-works' })];
    serve({
      'POST /integration-trigger/:id': () => ({
        output: [
          { id: '2002', urn: 'urn:li:organization:2002', name: 'Difference Works', vanityName: 'difference-works', current: true },
          { id: '3003', urn: 'urn:li:organization:3003', name: 'Notes Ltd', vanityName: 'notes-ltd', current: false },
        ],
      }),
      'PUT /integrations/:id/account': () => channel({ id: 'c-7', name: 'Notes Ltd', identifier: 'linkedin-page' }),
    });
    renderPage(<ChannelsPage />, { me: meFixture({ role: 'member' }) });
    const row = (await screen.findByText('Difference Works')).closest('li') as HTMLElement;
    await user.click(within(row).getByRole('button', { name: 'Manage Difference Works' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Choose the page…' }));
    const dialog = screen.getByRole('dialog', { name: 'Choose the page' });
    await user.click(await within(dialog).findByRole('radio', { name: /Notes Ltd/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Post as this page' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PUT')).toBeTruthy());
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ methodName: 'pages' });
    expect(calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/integrations/c-7/account', body: { id: '3003' } });
  });
});
