import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, meFixture, renderPage, type Call } from '../../test/kit.js';
import type { ApprovalGroup } from './types.js';

// the typed client keeps the fetch it finds when created: stub it before anything is imported
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ApprovalsPage, queueOrder } = await import('./ApprovalsPage.js');

const post = (id: string, name: string, content: string) => ({ id, integration: { id: `ch-${id}`, name, identifier: 'telegram', picture: null }, content, image: [], state: 'DRAFT' });

function group(over: Partial<ApprovalGroup> & Pick<ApprovalGroup, 'group' | 'status'>): ApprovalGroup {
  return {
    publishDate: '2031-07-01T09:00:00.000Z',
    rule: { id: 'r1', name: 'Client sign-off' },
    requestedBy: 'Carl',
    requestedAt: '2031-06-20T10:00:00.000Z',
    decidedBy: null,
    decidedAt: null,
    canApprove: true,
    posts: [post(`${over.group}-p1`, 'Acme News', `<p>Text of ${over.group}</p>`)],
    ...over,
  };
}

afterEach(() => fetchMock.mockReset());

describe('the Approvals page', () => {
  it('lists pending groups first, then those sent back; approves, and asks for a new time when the planned one has passed', async () => {
    const calls: Call[] = [];
    let approveTries = 0;
    let groups = [
      group({ group: 'g-back', status: 'changes_requested', decidedBy: 'Olga', publishDate: '2031-06-01T09:00:00.000Z' }),
      group({ group: 'g-late', status: 'pending_approval', publishDate: '2031-07-05T09:00:00.000Z', posts: [post('l1', 'Acme News', 'Late launch'), post('l2', 'Acme on Bluesky', 'Late launch')] }),
      group({ group: 'g-soon', status: 'pending_approval', publishDate: '2031-07-02T09:00:00.000Z' }),
    ];
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /approvals': () => ({ groups }),
          'POST /posts/group/:group/approve': (_req, _url, body) => {
            approveTries += 1;
            if (!(body as { date?: string }).date) return apiError(409, 'CONFLICT', 'This post’s time has passed while it awaited approval: approve it with a new date (field "date")', [{ path: 'date', message: 'A new publish date is needed' }]);
            groups = groups.filter((g) => g.group !== 'g-late');
            return { group: 'g-late', status: 'approved', posts: [{ id: 'l1', state: 'QUEUE', publishDate: (body as { date: string }).date }] };
          },
        },
        calls,
      ),
    );
    renderPage(<ApprovalsPage />, { me: meFixture({ timezone: 'UTC' }) });

    const cards = await screen.findAllByRole('listitem', { name: /Pending approval|Changes requested/ });
    expect(cards.map((c) => c.getAttribute('aria-label'))).toEqual([
      'Pending approval: Acme News',
      'Pending approval: Acme News, Acme on Bluesky',
      'Changes requested: Acme News',
    ]);
    expect(cards[0]!.textContent).toContain('Text of g-soon');
    expect(cards[0]!.textContent).toContain('Client sign-off');
    expect(cards[0]!.textContent).toContain('Carl');
    expect(within(cards[0]!).getByRole('link', { name: /Open/ }).getAttribute('href')).toBe('/posts/g-soon-p1');
    // a group sent back has no decision to take
    expect(within(cards[2]!).queryByRole('button', { name: /Approve/ })).toBeNull();
    expect(cards[2]!.textContent).toContain('Waiting for its author’s changes');
    expect(screen.getByText(/2 waiting for a decision, 1 sent back for changes/)).toBeTruthy();

    await userEvent.click(within(cards[1]!).getByRole('button', { name: 'Approve the post on Acme News, Acme on Bluesky' }));
    const dialog = await screen.findByRole('dialog', { name: 'Choose a new time' });
    await userEvent.clear(within(dialog).getByLabelText('Date'));
    await userEvent.type(within(dialog).getByLabelText('Date'), '2031-08-01');
    await userEvent.clear(within(dialog).getByLabelText('Time'));
    await userEvent.type(within(dialog).getByLabelText('Time'), '10:30');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Approve for this time' }));

    expect(await screen.findByText('Approved: the post on Acme News, Acme on Bluesky is queued.')).toBeTruthy();
    expect(approveTries).toBe(2);
    const approves = calls.filter((c) => c.method === 'POST');
    expect(approves.map((c) => [c.path, c.body])).toEqual([
      ['/posts/group/g-late/approve', {}],
      ['/posts/group/g-late/approve', { date: '2031-08-01T10:30:00.000Z' }],
    ]);
    await vi.waitFor(() => expect(screen.getAllByRole('listitem', { name: /Pending approval|Changes requested/ })).toHaveLength(2));
  });

  it('requests changes only with a comment', async () => {
    const calls: Call[] = [];
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /approvals': () => ({ groups: [group({ group: 'g1', status: 'pending_approval' })] }),
          'POST /posts/group/:group/request-changes': () => ({ group: 'g1', status: 'changes_requested' }),
        },
        calls,
      ),
    );
    renderPage(<ApprovalsPage />);
    const card = await screen.findByRole('listitem', { name: 'Pending approval: Acme News' });
    await userEvent.click(within(card).getByRole('button', { name: 'Request changes to the post on Acme News' }));
    const dialog = await screen.findByRole('dialog', { name: 'Request changes' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Request changes' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Say what needs changing.');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);

    await userEvent.type(within(dialog).getByLabelText('What needs changing'), 'Please use the new logo');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Request changes' }));
    expect(await screen.findByText('Changes requested on the post on Acme News.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([['/posts/group/g1/request-changes', { comment: 'Please use the new logo' }]]);
  });

  it('offers no decision to someone who cannot approve, and says when nothing waits', async () => {
    fetchMock.mockImplementation(apiFetch({ 'GET /approvals': () => ({ groups: [group({ group: 'g1', status: 'pending_approval', canApprove: false })] }) }));
    const first = renderPage(<ApprovalsPage />, { me: meFixture({ role: 'member' }) });
    const card = await screen.findByRole('listitem', { name: 'Pending approval: Acme News' });
    expect(within(card).queryByRole('button')).toBeNull();
    expect(card.textContent).toContain('Waiting for an approver');
    first.unmount();

    fetchMock.mockImplementation(apiFetch({ 'GET /approvals': () => ({ groups: [] }) }));
    renderPage(<ApprovalsPage />);
    expect(await screen.findByText('Nothing waiting for approval')).toBeTruthy();
  });

  it('orders pending before changes requested, soonest first', () => {
    const order = queueOrder([
      group({ group: 'a', status: 'changes_requested', publishDate: '2031-01-01T00:00:00Z' }),
      group({ group: 'b', status: 'pending_approval', publishDate: '2031-03-01T00:00:00Z' }),
      group({ group: 'c', status: 'pending_approval', publishDate: '2031-02-01T00:00:00Z' }),
    ]);
    expect(order.map((g) => g.group)).toEqual(['c', 'b', 'a']);
  });
});
