import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { Me } from '../../api/session.js';
import SettingsPage from './SettingsPage.js';
import { apiError, fakeApi, json, makeMe, renderWithApp, type Handler } from './test-utils.js';
import type { ApiKey, Webhook } from './types.js';

const net = vi.hoisted(() => {
  const holder: { fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response> } = { fetch: () => Promise.reject(new Error('no fake API')) };
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => holder.fetch(input, init));
  return holder;
});

function open(path: string, routes: Record<string, Handler>, me: Me = makeMe()) {
  const api = fakeApi({ 'GET /integrations': () => [], ...routes });
  net.fetch = api.fetch;
  const r = renderWithApp(
    <Routes>
      <Route path="/settings/*" element={<SettingsPage />} />
    </Routes>,
    { me, path },
  );
  return { ...r, api };
}

describe('settings: profile', () => {
  it('saves name and time zone with PUT /me and puts the answer in the shared ["me"] query', async () => {
    const user = userEvent.setup();
    const me = makeMe('owner', null);
    const { api, queryClient } = open('/settings', { 'PUT /me': ({ body }) => ({ ...me, user: { ...me.user, ...(body as object) } }) }, me);
    // /settings opens the profile
    const zone = await screen.findByRole('listbox', { name: 'Display time zone' });
    await user.type(screen.getByRole('searchbox', { name: 'Search time zones' }), 'tokyo');
    expect(within(zone).getAllByRole('option').map((o) => o.getAttribute('value'))).toEqual(['', 'Asia/Tokyo']);
    await user.selectOptions(zone, 'Asia/Tokyo');
    expect(screen.getByTestId('tz-now').textContent).toContain('Asia/Tokyo');
    await user.clear(screen.getByRole('textbox', { name: 'Name' }));
    await user.type(screen.getByRole('textbox', { name: 'Name' }), 'Olga B.');
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ name: 'Olga B.', timezone: 'Asia/Tokyo' }));
    await waitFor(() => expect(queryClient.getQueryData<Me>(['me'])?.user.timezone).toBe('Asia/Tokyo'));
    expect(screen.getByRole('link', { name: 'account page' }).getAttribute('href')).toBe('/account');
  });

  it('an unknown zone refused by the API is named at the time zone field', async () => {
    const user = userEvent.setup();
    open('/settings/profile', { 'PUT /me': () => apiError(400, 'VALIDATION_FAILED', 'timezone: Unknown time zone', [{ path: 'timezone', message: 'Unknown time zone "Asia/Tokyo": use an IANA name such as Europe/Paris' }]) });
    await user.selectOptions(await screen.findByRole('listbox', { name: 'Display time zone' }), 'Asia/Tokyo');
    await user.click(screen.getByRole('button', { name: 'Save profile' }));
    const error = await screen.findByText(/Unknown time zone "Asia\/Tokyo"/);
    expect(screen.getByRole('listbox', { name: 'Display time zone' }).getAttribute('aria-describedby')).toContain(error.id);
  });
});

describe('settings: API keys', () => {
  const key: ApiKey = { id: 'k1', name: 'Nightly import', prefix: 'tdk_AbCd', sandbox: false, approvalExempt: false, createdAt: '2026-11-20T08:00:00.000Z', lastUsedAt: null, revokedAt: null };

  it('creates a key, shows it once, lists it without the key; revokes after confirming', async () => {
    const user = userEvent.setup();
    let keys: ApiKey[] = [];
    const { api } = open('/settings/api-keys', {
      'GET /api-keys': () => keys,
      'POST /api-keys': () => {
        keys = [key];
        return { key, apiKey: 'tdk_AbCd_the_whole_secret' };
      },
      'DELETE /api-keys/{id}': ({ params }) => {
        keys = [];
        return { ...key, id: params.id, revokedAt: '2026-11-27T00:00:00.000Z' };
      },
    });
    expect(await screen.findByText('No API keys yet')).toBeTruthy();
    expect(screen.getByText(/budget of your own, per person/)).toBeTruthy();
    await user.type(screen.getByRole('textbox', { name: 'Key name' }), 'Nightly import');
    await user.click(screen.getByRole('button', { name: 'Create key' }));
    expect((await screen.findByRole<HTMLInputElement>('textbox', { name: 'API key' })).value).toBe('tdk_AbCd_the_whole_secret');
    const row = await screen.findByRole('row', { name: /Nightly import/ });
    expect(row.textContent).toContain('tdk_AbCd…');
    expect(row.textContent).toContain('Never');
    expect(row.textContent).not.toContain('the_whole_secret');
    await user.click(screen.getByRole('button', { name: 'Done, I have saved it' }));
    expect(document.body.innerHTML).not.toContain('the_whole_secret');

    await user.click(screen.getByRole('button', { name: 'Revoke Nightly import' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('401');
    await user.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/api-keys/k1')).toBe(true);
    expect(await screen.findByText('No API keys yet')).toBeTruthy();
  });

  it('a member sees the API’s 403 plainly', async () => {
    open('/settings/api-keys', { 'GET /api-keys': () => apiError(403, 'FORBIDDEN', 'Only owners and admins can do this') }, makeMe('member'));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Not allowed for your role');
    expect(alert.textContent).toContain('Only owners and admins can do this');
    expect(screen.queryByRole('textbox', { name: 'Key name' })).toBeNull();
  });
});

describe('settings: members', () => {
  const members = {
    me: { role: 'member' as const },
    members: [
      { userId: 'user-olga', email: 'olga@example.test', name: 'Olga', role: 'member' as const, since: '2026-01-01T00:00:00.000Z' },
      { userId: 'user-ada', email: 'ada@example.test', name: 'Ada', role: 'owner' as const, since: '2025-01-01T00:00:00.000Z' },
    ],
    invitations: [],
  };

  it('members read the list: no role choices, no invitations, no remove; they may leave', async () => {
    open('/settings/members', { 'GET /members': () => members }, makeMe('member'));
    const ada = await screen.findByRole('row', { name: /Ada/ });
    expect(within(ada).queryByRole('combobox')).toBeNull();
    expect(within(ada).queryByRole('button')).toBeNull();
    expect(within(screen.getByRole('row', { name: /Olga/ })).getByRole('button', { name: 'Leave Acme' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Create invitation' })).toBeNull();
    expect(screen.getByText(/Only owners and admins can invite/)).toBeTruthy();
  });

  it('owners change roles, and the invitation link is shown once with whether it was mailed', async () => {
    const user = userEvent.setup();
    const owner = { ...members, me: { role: 'owner' as const }, members: [{ ...members.members[0]!, role: 'owner' as const }, { ...members.members[1]!, role: 'member' as const }] };
    const { api } = open('/settings/members', {
      'GET /members': () => owner,
      'PUT /members/{userId}': ({ params, body }) => ({ userId: params.userId, ...(body as object) }),
      'POST /invitations': ({ body }) =>
        json(201, {
          invitation: { id: 'i1', email: (body as { email: string }).email, role: 'admin', createdAt: '2026-11-26T00:00:00.000Z', expiresAt: '2026-12-03T00:00:00.000Z' },
          link: 'http://tidings.test/account/invite/tok123',
          mailed: false,
        }),
    });
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Role of Ada' }), 'admin');
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/members/user-ada', body: { role: 'admin' } }));

    await user.type(screen.getByRole('textbox', { name: 'Email (optional)' }), 'new@example.test');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Role' }), 'admin');
    await user.click(screen.getByRole('button', { name: 'Create invitation' }));
    expect((await screen.findByRole<HTMLInputElement>('textbox', { name: 'Invitation link' })).value).toBe('http://tidings.test/account/invite/tok123');
    expect(screen.getByText(/Mail is not set up on this server: send it yourself/)).toBeTruthy();
    expect(api.calls.find((c) => c.method === 'POST')!.body).toEqual({ role: 'admin', email: 'new@example.test' });
  });
});

describe('settings: webhooks', () => {
  const hook: Webhook = {
    id: 'w1',
    name: 'CRM sync',
    url: 'https://crm.example/hook',
    events: [],
    integrations: [],
    enabled: false,
    disabledReason: 'the receiver answered 410 Gone',
    secretPreviousValidUntil: null,
    createdAt: '2026-11-20T08:00:00.000Z',
    updatedAt: '2026-11-20T08:00:00.000Z',
  };

  it('the URL the API refuses is named at the URL field; created, its secret is shown once', async () => {
    const user = userEvent.setup();
    let attempts = 0;
    let hooks: Webhook[] = [];
    const { api } = open('/settings/webhooks', {
      'GET /webhooks': () => hooks,
      'POST /webhooks': ({ body }) => {
        attempts += 1;
        if (attempts === 1) return apiError(400, 'VALIDATION_FAILED', 'url: 10.0.0.1 is a private or reserved address, which is not allowed', [{ path: 'url', message: '10.0.0.1 is a private or reserved address, which is not allowed' }]);
        const made = { ...hook, ...(body as object), enabled: true, disabledReason: null };
        hooks = [made];
        return { ...made, secret: 'whsec_c2VjcmV0' };
      },
    });
    await user.click(await screen.findByRole('button', { name: 'New webhook' }));
    const dialog = await screen.findByRole('dialog');
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'CRM sync');
    await user.type(within(dialog).getByRole('textbox', { name: 'URL' }), 'http://10.0.0.1/hook');
    await user.click(within(dialog).getByRole('checkbox', { name: /post\.published/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Create webhook' }));
    const urlError = await within(dialog).findByText('10.0.0.1 is a private or reserved address, which is not allowed');
    const url = within(dialog).getByRole('textbox', { name: 'URL' });
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(url.getAttribute('aria-describedby')).toContain(urlError.id);

    await user.clear(url);
    await user.type(url, 'https://crm.example/hook');
    await user.click(within(dialog).getByRole('button', { name: 'Create webhook' }));
    expect((await screen.findByRole<HTMLInputElement>('textbox', { name: 'Signing secret' })).value).toBe('whsec_c2VjcmV0');
    expect(api.calls.filter((c) => c.method === 'POST').at(-1)!.body).toEqual({ name: 'CRM sync', url: 'https://crm.example/hook', events: ['post.published'], integrations: [], enabled: true });
    await user.click(screen.getByRole('button', { name: 'Done, I have saved it' }));
    expect(document.body.innerHTML).not.toContain('whsec_c2VjcmV0');
  });

  it('shows why the service disabled a webhook; a rotated secret is shown once with the old one’s 24 h', async () => {
    const user = userEvent.setup();
    const { api } = open('/settings/webhooks', {
      'GET /webhooks': () => [hook],
      'POST /webhooks/{id}/rotate-secret': () => json(200, { secret: 'whsec_bmV3', previousValidUntil: '2026-11-28T00:00:00.000Z' }),
      'PUT /webhooks/{id}': ({ body }) => ({ ...hook, ...(body as object), disabledReason: null }),
    });
    expect((await screen.findByText(/The service disabled this webhook/)).parentElement!.textContent).toContain('the receiver answered 410 Gone');
    await user.click(screen.getByRole('button', { name: 'Re-enable' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')).toMatchObject({ path: '/webhooks/w1', body: { enabled: true } }));

    await user.click(screen.getByRole('button', { name: 'Rotate the signing secret of CRM sync' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Rotate secret' }));
    expect((await screen.findByRole<HTMLInputElement>('textbox', { name: 'Signing secret' })).value).toBe('whsec_bmV3');
    expect(screen.getByText(/previous secret keeps signing deliveries/).querySelector('time')!.getAttribute('title')).toBe('2026-11-28 00:00 UTC');
  });
});
