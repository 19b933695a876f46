import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeProvider } from '../../api/session.js';
import { apiError, channel, json, meFixture, resetComposer, serve, type BodyHandler, type Call } from '../../test/kit.js';
import type { ApprovalCheck } from './types.js';

// The typed client keeps the fetch it found when created: stub it before anything imports it.
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ComposeDialog } = await import('../compose/ComposeDialog.js');

const tgRules = {
  rules: '',
  maxLength: 4096,
  counting: 'characters',
  editor: 'html',
  thread: { supported: true, kind: 'reply' },
  media: { minItems: 0, maxItems: 10, mixed: true, onThreadItems: true, image: { maxCount: 10, mimeTypes: ['image/png'] } },
  settings: 'No additional settings required',
  tools: [],
  defaults: {},
};
const needed: ApprovalCheck = { required: true, rule: { id: 'r1', name: 'Client sign-off' }, canApprove: false, canSchedule: false };
const notNeeded: ApprovalCheck = { required: false, rule: null, canApprove: true, canSchedule: true };

function open(routes: Record<string, BodyHandler>, calls: Call[]) {
  serve(fetchMock, { 'GET /integrations': () => [channel({ id: 'tg', identifier: 'telegram', name: 'Acme News' })], 'GET /integration-settings/:id': () => ({ output: tgRules }), ...routes }, calls);
  const onOpenChange = vi.fn();
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <MemoryRouter>
      <QueryClientProvider client={queryClient}>
        <MeProvider me={meFixture({ role: 'member', timezone: 'UTC' })}>
          <ComposeDialog open onOpenChange={onOpenChange} initial={{ date: '2031-07-01T09:00:00.000Z', integrationIds: ['tg'] }} />
        </MeProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return { onOpenChange };
}

afterEach(() => resetComposer(fetchMock));

describe('the composer on channels that need approval', () => {
  it('reads "Submit for approval": saves a draft for the chosen time, submits its group, and says so', async () => {
    const calls: Call[] = [];
    const { onOpenChange } = open(
      {
        'GET /approvals/check': () => needed,
        'POST /posts': () => json([{ postId: 'p1', integration: 'tg', group: 'g-1' }], 201),
        'POST /posts/group/:group/submit': () => ({ group: 'g-1', status: 'pending_approval' }),
      },
      calls,
    );
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    const submit = await within(dialog).findByRole('button', { name: 'Submit for approval' });
    expect(submit.getAttribute('title')).toBe('Approval rule “Client sign-off”');
    // nothing that would queue it at once is offered
    expect(within(dialog).queryByRole('button', { name: 'Post now' })).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Add to queue' })).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Schedule' })).toBeNull();
    expect(calls.find((c) => c.path === '/approvals/check')!.search.get('integrations')).toBe('tg');

    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Launch day' } });
    await userEvent.click(submit);
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    const posts = calls.filter((c) => c.method === 'POST');
    expect(posts.map((c) => c.path)).toEqual(['/posts', '/posts/group/g-1/submit']);
    expect(posts[0]!.body).toMatchObject({ type: 'draft', date: '2031-07-01T09:00:00.000Z', posts: [{ integration: { id: 'tg' }, value: [{ content: '<p>Launch day</p>' }] }] });
    expect(document.querySelector('.compose-toast')?.textContent).toContain('Sent for approval');
  });

  it('checks the text as a schedule would before submitting (an empty post is not sent)', async () => {
    const calls: Call[] = [];
    open({ 'GET /approvals/check': () => needed }, calls);
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Submit for approval' }));
    expect(await within(dialog).findByText(/Not sent: one thing needs fixing first/)).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('shows the 403 APPROVAL_REQUIRED message of a schedule, and then offers "Submit for approval"', async () => {
    const calls: Call[] = [];
    let ruleMade = false;
    open(
      {
        'GET /approvals/check': () => (ruleMade ? needed : notNeeded),
        'POST /posts': () => {
          ruleMade = true;
          return apiError(403, 'APPROVAL_REQUIRED', 'Posts on "Acme News" need approval (rule "Client sign-off"): submit it for approval.');
        },
      },
      calls,
    );
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    fireEvent.change(await within(dialog).findByLabelText('Post text'), { target: { value: 'Launch day' } });
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Schedule' }));
    const alert = await within(dialog).findByRole('alert');
    await waitFor(() => expect(alert.textContent).toContain('Posts on "Acme News" need approval (rule "Client sign-off")'));
    expect(await within(dialog).findByRole('button', { name: 'Submit for approval' })).toBeTruthy();
  });
});
