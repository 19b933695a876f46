import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, renderPage, type Call } from '../../test/kit.js';
import type { ApprovalCheck, PostApproval } from './types.js';

// the typed client keeps the fetch it finds when created: stub it before anything is imported
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { ApprovalBar } = await import('./ApprovalBar.js');

const check = (over: Partial<ApprovalCheck> = {}): ApprovalCheck => ({ required: true, rule: { id: 'r1', name: 'Client sign-off' }, canApprove: false, canSchedule: false, ...over });
const approval = (over: Partial<PostApproval>): PostApproval => ({
  status: 'pending_approval',
  ruleId: 'r1',
  requestedBy: 'Carl',
  requestedAt: '2031-06-20T10:00:00.000Z',
  decidedBy: null,
  decidedAt: null,
  ...over,
});
const post = (state: string, a: PostApproval | null) => ({ id: 'p1', group: 'g1', state, integration: { id: 'ch1' }, approval: a });

afterEach(() => fetchMock.mockReset());

describe('the approval bar', () => {
  it('offers a draft on a channel with a rule for approval, and submits it', async () => {
    const calls: Call[] = [];
    fetchMock.mockImplementation(apiFetch({ 'GET /approvals/check': () => check(), 'POST /posts/group/:group/submit': () => ({ group: 'g1', status: 'pending_approval' }) }, calls));
    renderPage(<ApprovalBar post={post('DRAFT', null)} />);
    const bar = await screen.findByRole('region', { name: 'Approval' });
    expect(bar.textContent).toContain('Needs approval');
    expect(bar.textContent).toContain('Rule “Client sign-off”');
    expect(calls[0]!.search.get('integrations')).toBe('ch1');
    await userEvent.click(within(bar).getByRole('button', { name: 'Submit for approval' }));
    expect(await within(bar).findByText('Sent for approval.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([['/posts/group/g1/submit', {}]]);
  });

  it('shows nothing for a post no rule covers', async () => {
    const calls: Call[] = [];
    fetchMock.mockImplementation(apiFetch({ 'GET /approvals/check': () => check({ required: false, rule: null, canSchedule: true }) }, calls));
    const { container } = renderPage(<ApprovalBar post={post('DRAFT', null)} />);
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    await new Promise((r) => setTimeout(r, 20));
    expect(container.querySelector('.approval-bar')).toBeNull();
  });

  it('lets an approver approve a pending post; its author sees only the status', async () => {
    const calls: Call[] = [];
    fetchMock.mockImplementation(
      apiFetch({ 'GET /approvals/check': () => check({ canApprove: true, canSchedule: true, required: false }), 'POST /posts/group/:group/approve': () => ({ group: 'g1', status: 'approved', posts: [] }) }, calls),
    );
    const first = renderPage(<ApprovalBar post={post('DRAFT', approval({}))} />);
    const bar = await screen.findByRole('region', { name: 'Approval' });
    expect(bar.textContent).toContain('Pending approval');
    expect(bar.textContent).toContain('submitted by Carl');
    expect(within(bar).queryByRole('button', { name: 'Submit for approval' })).toBeNull();
    await userEvent.click(await within(bar).findByRole('button', { name: 'Approve' }));
    expect(await within(bar).findByText('Approved: the post is queued for its time.')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/posts/group/g1/approve']);
    first.unmount();

    fetchMock.mockImplementation(apiFetch({ 'GET /approvals/check': () => check() }));
    renderPage(<ApprovalBar post={post('DRAFT', approval({}))} />);
    const mine = await screen.findByRole('region', { name: 'Approval' });
    await new Promise((r) => setTimeout(r, 20));
    expect(within(mine).queryAllByRole('button')).toEqual([]);
  });

  it('says who approved, and offers a post sent back for changes again', async () => {
    fetchMock.mockImplementation(
      apiFetch({
        'GET /approvals/check': () => check({ rule: { id: 'r2', name: 'Channel rule' } }),
        'GET /approval-rules': () => ({ rules: [{ id: 'r1', name: 'Client sign-off', scope: 'organization', scopeId: null, approverRoles: ['owner'], approverUserIds: [], reapproveOnEdit: true, createdAt: '2031-01-01T00:00:00.000Z', updatedAt: '2031-01-01T00:00:00.000Z' }] }),
      }),
    );
    const first = renderPage(<ApprovalBar post={post('QUEUE', approval({ status: 'approved', decidedBy: 'Olga', decidedAt: '2031-06-21T10:00:00.000Z' }))} />);
    const approved = await screen.findByRole('region', { name: 'Approval' });
    expect(approved.textContent).toContain('Approved by Olga');
    // the rule that asked, named from the rules list
    await vi.waitFor(() => expect(approved.textContent).toContain('Rule “Client sign-off”'));
    first.unmount();

    renderPage(<ApprovalBar post={post('DRAFT', approval({ status: 'changes_requested', decidedBy: 'Olga' }))} />);
    const bar = await screen.findByRole('region', { name: 'Approval' });
    expect(bar.textContent).toContain('Changes requested');
    expect(bar.textContent).toContain('Olga asked for changes');
    expect(within(bar).getByRole('button', { name: 'Submit for approval' })).toBeTruthy();
  });
});
