import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, json, renderPage, type Call } from '../../test/kit.js';
import type { PreviewLink } from './linkQueries.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { PreviewLinkDialog, ShareForReviewButton } = await import('./PreviewLinkDialog.js');

afterEach(() => fetchMock.mockReset());

const link = (over: Partial<PreviewLink>): PreviewLink => ({
  id: 'l1',
  kind: 'group',
  group: 'g-1',
  from: null,
  to: null,
  customerId: null,
  title: '',
  allowApproval: false,
  hasPassword: false,
  expiresAt: '2031-07-08T09:00:00.000Z',
  revokedAt: null,
  createdBy: 'Olga',
  createdAt: '2031-07-01T09:00:00.000Z',
  lastViewedAt: null,
  status: 'active',
  ...over,
});
const URL_ONCE = 'https://tidings.example.test/preview/tdp_secret-token-shown-once';

describe('Share for review', () => {
  it('creates a link (expiry, password, approval), shows its address once with Copy, lists the group’s links and revokes one', async () => {
    const calls: Call[] = [];
    let links = [link({ id: 'old', title: 'First try', lastViewedAt: '2031-07-02T10:00:00.000Z' }), link({ id: 'gone', status: 'revoked', revokedAt: '2031-07-02T11:00:00.000Z' })];
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /preview-links': () => ({ links }),
          'POST /preview-links': () => {
            const made = link({ id: 'new', title: 'Launch', hasPassword: true, allowApproval: true });
            links = [made, ...links];
            return json({ link: made, url: URL_ONCE }, 201);
          },
          'DELETE /preview-links/:id': () => new Response(null, { status: 204 }),
        },
        calls,
      ),
    );
    renderPage(<ShareForReviewButton group="g-1" />);
    await userEvent.click(screen.getByRole('button', { name: 'Share for review' }));
    const dialog = await screen.findByRole('dialog', { name: 'Share for review' });
    const list = await within(dialog).findByRole('list');
    expect(within(list).getAllByRole('listitem').map((li) => li.textContent)).toEqual([expect.stringContaining('First try'), expect.stringContaining('Revoked')]);
    // only active links can be revoked
    expect(within(list).getAllByRole('button', { name: /^Revoke/ })).toHaveLength(1);
    expect(calls[0]!.search.get('group')).toBe('g-1');

    await userEvent.type(within(dialog).getByLabelText('Title (optional)'), 'Launch');
    await userEvent.selectOptions(within(dialog).getByLabelText('Link expires after'), '3 days');
    await userEvent.type(within(dialog).getByLabelText('Password (optional)'), 'open sesame');
    await userEvent.click(within(dialog).getByRole('checkbox', { name: /approve or request changes/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create link' }));

    const shown = await within(dialog).findByLabelText<HTMLInputElement>('Preview link');
    expect(shown.value).toBe(URL_ONCE);
    expect(within(dialog).getByRole('button', { name: 'Copy' })).toBeTruthy();
    expect(within(dialog).getByText(/Send the password to your client separately/)).toBeTruthy();
    expect(calls.find((c) => c.method === 'POST')!.body).toEqual({ target: { kind: 'group', group: 'g-1' }, title: 'Launch', expiresInHours: 72, password: 'open sesame', allowApproval: true });
    await waitFor(() => expect(within(dialog).getAllByRole('listitem')).toHaveLength(3));

    // Done: the address is gone from the page.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Done, I have saved it' }));
    expect(within(dialog).queryByDisplayValue(URL_ONCE)).toBeNull();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Revoke the link “First try”' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE')).toBe(true));
    expect(calls.filter((c) => c.method === 'DELETE').map((c) => c.path)).toEqual(['/preview-links/old']);
  });

  it('shows a refusal (a person who may not approve asking for approval) and a bad field next to it', async () => {
    let answer = apiError(403, 'FORBIDDEN', 'Only someone who may approve these posts can let a preview link approve');
    fetchMock.mockImplementation(apiFetch({ 'GET /preview-links': () => ({ links: [] }), 'POST /preview-links': () => answer }));
    renderPage(<PreviewLinkDialog open onOpenChange={() => undefined} target={{ kind: 'range', from: '2031-07-01T00:00:00Z', to: '2031-08-01T00:00:00Z' }} />);
    const dialog = await screen.findByRole('dialog', { name: 'Share for review' });
    expect(await within(dialog).findByText('None yet.')).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('checkbox'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create link' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('Only someone who may approve');

    answer = apiError(400, 'VALIDATION_FAILED', 'password: Too small', [{ path: 'password', message: 'Too small: expected string to have >=8 characters' }]);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create link' }));
    const field = within(dialog).getByLabelText('Password (optional)');
    await waitFor(() => expect(field.getAttribute('aria-invalid')).toBe('true'));
    expect(within(dialog).getByText('Too small: expected string to have >=8 characters')).toBeTruthy();
  });
});
