import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { apiError, fakeApi, renderWithApp, type Handler } from '../settings/test-utils.js';
import type { ApprovalRule } from './types.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

const { default: SettingsPage } = await import('../settings/SettingsPage.js');

const stamp = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const channels = [
  { id: 'tg', name: 'Acme News', identifier: 'telegram', picture: null, disabled: false, profile: null, refreshNeeded: false, postingTimes: [], settings: {}, ...stamp },
  { id: 'sky', name: 'Acme on Bluesky', identifier: 'bluesky', picture: null, disabled: false, profile: null, refreshNeeded: false, postingTimes: [], settings: {}, ...stamp },
];
const members = {
  members: [
    { userId: 'user-olga', email: 'olga@example.test', name: 'Olga', role: 'owner', since: '2026-01-01T00:00:00.000Z' },
    { userId: 'user-vera', email: 'vera@client.test', name: 'Vera', role: 'member', since: '2026-01-01T00:00:00.000Z' },
  ],
  invitations: [],
};

function open(routes: Record<string, Handler>, path = '/settings/approvals') {
  const api = fakeApi({ 'GET /integrations': () => channels, 'GET /groups': () => [{ id: 'cust-1', name: 'Client A' }], 'GET /members': () => members, ...routes });
  net.fetch = api.fetch;
  renderWithApp(
    <Routes>
      <Route path="/settings/*" element={<SettingsPage />} />
    </Routes>,
    { path },
  );
  return api;
}

describe('settings: approval rules', () => {
  it('lists, creates (one channel, roles, a named approver), edits and deletes rules; the API’s field error shows by its field', async () => {
    const user = userEvent.setup();
    let rules: ApprovalRule[] = [{ id: 'r1', name: 'Everything', scope: 'organization', scopeId: null, approverRoles: ['owner', 'admin'], approverUserIds: [], reapproveOnEdit: true, ...stamp }];
    let posts = 0;
    const api = open({
      'GET /approval-rules': () => ({ rules }),
      'POST /approval-rules': ({ body }) => {
        posts += 1;
        if (posts === 1) return apiError(400, 'VALIDATION_FAILED', 'name: Too long', [{ path: 'name', message: 'Name already used' }]);
        const rule = { id: 'r2', ...(body as Omit<ApprovalRule, 'id' | 'createdAt' | 'updatedAt'>), ...stamp };
        rules = [...rules, rule];
        return rule;
      },
      'PUT /approval-rules/{id}': ({ body, params }) => {
        rules = rules.map((r) => (r.id === params.id ? { ...r, ...(body as object) } : r));
        return rules.find((r) => r.id === params.id);
      },
      'DELETE /approval-rules/{id}': ({ params }) => {
        rules = rules.filter((r) => r.id !== params.id);
        return new Response(null, { status: 204 });
      },
    });

    expect(await screen.findByRole('heading', { name: 'Everything' })).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Approval rules' }).className).toContain('active');
    const card = screen.getByRole('heading', { name: 'Everything' }).closest('li')!;
    expect(card.textContent).toContain('Every channel');
    expect(card.textContent).toContain('owners, admins');

    await user.click(screen.getByRole('button', { name: 'New rule' }));
    const dialog = await screen.findByRole('dialog', { name: 'New rule' });
    await user.type(within(dialog).getByLabelText('Name'), 'Client sign-off');
    await user.selectOptions(within(dialog).getByLabelText('Applies to'), 'channel');
    await user.selectOptions(await within(dialog).findByLabelText('Channel'), 'sky');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Admins' }));
    await user.click(within(dialog).getByRole('checkbox', { name: /Vera/ }));
    await user.click(within(dialog).getByRole('checkbox', { name: /Edits by others send it back/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Create rule' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Name already used');
    await user.click(within(dialog).getByRole('button', { name: 'Create rule' }));

    const made = await screen.findByRole('heading', { name: 'Client sign-off' });
    const posted = api.calls.filter((c) => c.method === 'POST').at(-1)!;
    expect(posted.body).toEqual({ name: 'Client sign-off', scope: 'channel', scopeId: 'sky', approverRoles: ['owner'], approverUserIds: ['user-vera'], reapproveOnEdit: false });
    const madeCard = made.closest('li')!;
    expect(madeCard.textContent).toContain('Channel Acme on Bluesky');
    expect(madeCard.textContent).toContain('owners, Vera');
    expect(madeCard.textContent).toContain('keep the approval');

    await user.click(screen.getByRole('button', { name: 'Edit Client sign-off' }));
    const edit = await screen.findByRole('dialog', { name: 'Edit “Client sign-off”' });
    // what a rule applies to stays as it was made
    expect(within(edit).getByLabelText<HTMLSelectElement>('Channel').value).toBe('sky');
    expect(within(edit).getByLabelText<HTMLSelectElement>('Channel').disabled).toBe(true);
    expect(within(edit).getByLabelText<HTMLSelectElement>('Applies to').disabled).toBe(true);
    await user.click(within(edit).getByRole('checkbox', { name: 'Members' }));
    await user.click(within(edit).getByRole('button', { name: 'Save changes' }));
    await vi.waitFor(() => expect(screen.getByRole('heading', { name: 'Client sign-off' }).closest('li')!.textContent).toContain('owners, members, Vera'));
    expect(api.calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/approval-rules/r2', body: { name: 'Client sign-off', approverRoles: ['owner', 'member'], approverUserIds: ['user-vera'], reapproveOnEdit: false } });
    expect(api.calls.find((c) => c.method === 'PUT')!.body).not.toHaveProperty('scope');

    await user.click(screen.getByRole('button', { name: 'Delete Everything' }));
    await user.click(await screen.findByRole('button', { name: 'Delete rule' }));
    await vi.waitFor(() => expect(screen.queryByRole('heading', { name: 'Everything' })).toBeNull());
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/approval-rules/r1')).toBe(true);
  });

  it('offers the contributor role to invite and to give a member', async () => {
    const user = userEvent.setup();
    const api = open(
      {
        'PUT /members/{userId}': ({ body }) => ({ ...members.members[1], ...(body as object) }),
        'POST /invitations': ({ body }) => ({ invitation: { id: 'i1', email: null, role: (body as { role: string }).role, createdAt: stamp.createdAt, expiresAt: stamp.createdAt }, link: 'http://x/invite/abc', mailed: false }),
      },
      '/settings/members',
    );
    const select = await screen.findByLabelText<HTMLSelectElement>('Role of Vera');
    expect([...select.options].map((o) => o.textContent)).toEqual(['Owner', 'Admin', 'Member', 'Contributor']);
    await user.selectOptions(select, 'contributor');
    await vi.waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ role: 'contributor' }));
    await user.selectOptions(screen.getByLabelText('Role'), 'contributor');
    await user.click(screen.getByRole('button', { name: 'Create invitation' }));
    await vi.waitFor(() => expect(api.calls.find((c) => c.method === 'POST')?.body).toEqual({ role: 'contributor' }));
    expect(await screen.findByText(/joins as contributor/)).toBeTruthy();
  });

  it('lets an owner exempt an API key from approval', async () => {
    const user = userEvent.setup();
    let exempt = false;
    const api = open(
      {
        'GET /api-keys': () => [{ id: 'k1', name: 'Nightly import', prefix: 'tdk_abc', sandbox: false, approvalExempt: exempt, createdAt: stamp.createdAt, lastUsedAt: null, revokedAt: null }],
        'PUT /api-keys/{id}/approval': ({ body }) => {
          exempt = (body as { approvalExempt: boolean }).approvalExempt;
          return { id: 'k1', name: 'Nightly import', approvalExempt: exempt };
        },
      },
      '/settings/api-keys',
    );
    const box = await screen.findByRole<HTMLInputElement>('checkbox', { name: 'Exempt Nightly import from approval' });
    expect(box.checked).toBe(false);
    await user.click(box);
    await vi.waitFor(() => expect(screen.getByRole<HTMLInputElement>('checkbox', { name: 'Exempt Nightly import from approval' }).checked).toBe(true));
    expect(api.calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/api-keys/k1/approval', body: { approvalExempt: true } });
  });
});
