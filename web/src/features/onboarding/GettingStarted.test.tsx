import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, meFixture, renderPage, type Call, type Routes } from '../../test/kit.js';
import { checklistItems, dismissKey, shouldShow, type Onboarding } from './checklist.js';
import { GettingStarted } from './GettingStarted.js';
import { NewPostButton } from './NewPostButton.js';

// the typed client keeps the fetch it found at import: the stand-in goes in first
const server = vi.hoisted(() => {
  const holder: { fetch: (req: Request) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no routes')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input instanceof Request ? input : new Request(input, init)));
  return holder;
});

const steps = (done: Partial<Record<Onboarding['steps'][number]['id'], boolean>>): Onboarding => ({
  steps: (['connect-channel', 'first-post', 'invite-teammate', 'api-key'] as const).map((id) => ({ id, done: done[id] ?? false })),
});

let calls: Call[];
function answer(routes: Routes) {
  calls = [];
  server.fetch = apiFetch(routes, calls);
}

beforeEach(() => window.localStorage.clear());

describe('the checklist model', () => {
  it('titles the steps in the API’s order; the live channel count wins over a stale answer', () => {
    const items = checklistItems(steps({ 'api-key': true }));
    expect(items.map((i) => [i.title, i.done])).toEqual([
      ['Connect a channel', false],
      ['Write a first post', false],
      ['Invite a teammate', false],
      ['Create an API key', true],
    ]);
    expect(checklistItems(steps({}), 2)[0]!.done).toBe(true);
    expect(checklistItems(steps({ 'connect-channel': true }), 0)[0]!.done).toBe(false);
  });

  it('shows while a step is left and it is not dismissed', () => {
    expect(shouldShow(checklistItems(steps({})), false)).toBe(true);
    expect(shouldShow(checklistItems(steps({})), true)).toBe(false);
    const all = steps({ 'connect-channel': true, 'first-post': true, 'invite-teammate': true, 'api-key': true });
    expect(shouldShow(checklistItems(all), false)).toBe(false);
  });
});

describe('<GettingStarted>', () => {
  it('lists the four steps with nothing done; each one’s action leads to its fix', async () => {
    answer({ 'GET /onboarding': () => steps({}) });
    const onConnect = vi.fn();
    renderPage(<GettingStarted onConnect={onConnect} onWrite={() => undefined} />, { extraRoutes: [{ path: '/settings/*', element: null }] });
    const list = await screen.findByRole('region', { name: 'Getting started' });
    expect(within(list).getByText('0 of 4 done')).toBeTruthy();
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      expect.stringContaining('Connect a channel (to do)'),
      expect.stringContaining('Write a first post (to do)'),
      expect.stringContaining('Invite a teammate (to do)'),
      expect.stringContaining('Create an API key (to do)'),
    ]);
    await userEvent.click(within(list).getByRole('button', { name: 'Connect a channel' }));
    expect(onConnect).toHaveBeenCalledOnce();
    // no channel yet: writing a post waits for one, and says so
    expect(within(list).getByRole<HTMLButtonElement>('button', { name: 'Write a post' }).disabled).toBe(true);
    expect(within(list).getByText(/Connect a channel first/)).toBeTruthy();
    expect(within(list).getByRole('link', { name: 'Invite a teammate' }).getAttribute('href')).toBe('/settings/members');
    expect(within(list).getByRole('link', { name: 'Create an API key' }).getAttribute('href')).toBe('/settings/api-keys');
  });

  it('ticks what is done, and has the place for more actions on the first step', async () => {
    answer({ 'GET /onboarding': () => steps({ 'connect-channel': true, 'api-key': true }) });
    const onWrite = vi.fn();
    renderPage(<GettingStarted channels={1} onConnect={() => undefined} onWrite={onWrite} connectExtraActions={<button type="button">Try it with sandbox channels</button>} />);
    const list = await screen.findByRole('region', { name: 'Getting started' });
    expect(within(list).getByText('2 of 4 done')).toBeTruthy();
    expect(within(list).getByText(/Connect a channel/).textContent).toContain('(done)');
    // a done step offers no action (its extra actions included)
    expect(within(list).queryByRole('button', { name: 'Try it with sandbox channels' })).toBeNull();
    await userEvent.click(within(list).getByRole('button', { name: 'Write a post' }));
    expect(onWrite).toHaveBeenCalledOnce();
  });

  it('the extra actions sit beside “Connect a channel” while it is to do', async () => {
    answer({ 'GET /onboarding': () => steps({}) });
    renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} connectExtraActions={<button type="button">Try it with sandbox channels</button>} />);
    const first = (await screen.findAllByRole('listitem'))[0]!;
    expect(within(first).getAllByRole('button').map((b) => b.textContent)).toEqual(['Connect a channel', 'Try it with sandbox channels']);
  });

  it('is gone when every step is done', async () => {
    answer({ 'GET /onboarding': () => steps({ 'connect-channel': true, 'first-post': true, 'invite-teammate': true, 'api-key': true }) });
    renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} />);
    await waitFor(() => expect(calls.some((c) => c.path === '/onboarding')).toBe(true));
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.queryByRole('region', { name: 'Getting started' })).toBeNull();
  });

  it('hidden, it stays hidden for this person (localStorage) and is not even read', async () => {
    answer({ 'GET /onboarding': () => steps({}) });
    const first = renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Hide checklist' }));
    expect(screen.queryByRole('region', { name: 'Getting started' })).toBeNull();
    expect(window.localStorage.getItem(dismissKey('user-1', 'org-1'))).toBe('1');
    first.unmount();

    answer({ 'GET /onboarding': () => steps({}) });
    renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} />);
    expect(screen.queryByRole('region', { name: 'Getting started' })).toBeNull();
    expect(calls).toEqual([]);

    // another organisation of the same person still shows it
    answer({ 'GET /onboarding': () => steps({}) });
    renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} />, { me: meFixture({ organizationId: 'org-2' }) });
    expect(await screen.findByRole('region', { name: 'Getting started' })).toBeTruthy();
  });

  it('reads the steps again when a query a step depends on is invalidated (a post made elsewhere)', async () => {
    let answered = steps({ 'connect-channel': true });
    answer({ 'GET /onboarding': () => answered });
    const { queryClient } = renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} />);
    await screen.findByText('1 of 4 done');
    // the calendar's posts of some week, as the page holds them
    queryClient.setQueryData(['posts', '2026-01-05', '2026-01-12', ''], []);
    answered = steps({ 'connect-channel': true, 'first-post': true });
    await queryClient.invalidateQueries({ queryKey: ['posts'] });
    expect(await screen.findByText('2 of 4 done')).toBeTruthy();
  });

  it('a plain member is told who invites and makes keys', async () => {
    answer({ 'GET /onboarding': () => steps({}) });
    renderPage(<GettingStarted onConnect={() => undefined} onWrite={() => undefined} />, { me: meFixture({ role: 'member' }) });
    const list = await screen.findByRole('region', { name: 'Getting started' });
    expect(within(list).getByText(/Owners and admins invite people/)).toBeTruthy();
    expect(within(list).queryByRole('link', { name: 'Create an API key' })).toBeNull();
  });
});

describe('<NewPostButton>', () => {
  it('with no channel: disabled, described by why, and offers connecting one', async () => {
    const onConnect = vi.fn();
    renderPage(<NewPostButton noChannels onNew={() => undefined} onConnect={onConnect} />);
    const button = screen.getByRole<HTMLButtonElement>('button', { name: 'New post' });
    expect(button.disabled).toBe(true);
    const why = document.getElementById(button.getAttribute('aria-describedby')!);
    expect(why?.textContent).toContain('Connect a channel first');
    await userEvent.click(screen.getByRole('button', { name: 'Connect a channel' }));
    expect(onConnect).toHaveBeenCalledOnce();
  });

  it('with channels: a plain enabled button', async () => {
    const onNew = vi.fn();
    renderPage(<NewPostButton noChannels={false} onNew={onNew} onConnect={() => undefined} />);
    await userEvent.click(screen.getByRole('button', { name: 'New post' }));
    expect(onNew).toHaveBeenCalledOnce();
    expect(screen.queryByText(/Connect a channel first/)).toBeNull();
  });
});
