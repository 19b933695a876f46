import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiError, apiFetch, renderPage, type Call } from '../../test/kit.js';
import type { PreviewView } from './types.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: PreviewPage, NAME_KEY } = await import('./PreviewPage.js');

afterEach(() => {
  fetchMock.mockReset();
  localStorage.clear();
  document.head.querySelectorAll('meta[name="robots"], meta[name="referrer"]').forEach((m) => m.remove());
});

const TOKEN = 'tdp_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
const view = (over: Partial<PreviewView['link']> = {}, status: PreviewView['groups'][number]['status'] = 'pending_approval'): PreviewView => ({
  link: { title: 'March for Acme', expiresAt: '2031-08-01T09:00:00.000Z', allowApproval: false, ...over },
  organization: { name: 'Agency' },
  groups: [
    {
      group: 'g-1',
      publishDate: '2031-07-01T09:00:00.000Z',
      status,
      posts: [
        { channel: { name: 'Sky A', identifier: 'bluesky', picture: null }, items: [{ content: '<p>Launch day</p>', image: [{ path: 'https://cdn.example.test/a.png', type: 'image', thumbnail: null, alt: 'a' }], delay: 0 }, { content: 'More in the reply', image: [], delay: 5 }], settings: {} },
        { channel: { name: 'TG A', identifier: 'telegram', picture: null }, items: [{ content: 'Launch day on Telegram', image: [], delay: 0 }], settings: {} },
      ],
    },
  ],
});

const open = () => renderPage(<PreviewPage />, { path: '/preview/:token', route: `/preview/${TOKEN}` });

describe('the client preview page', () => {
  it('shows each post as it will look on each channel, with its status, and keeps itself out of search engines', async () => {
    const calls: Call[] = [];
    fetchMock.mockImplementation(apiFetch({ 'GET /preview-api/:token': () => view({}, 'scheduled') }, calls));
    open();
    expect(await screen.findByRole('heading', { name: 'March for Acme' })).toBeTruthy();
    expect(calls.map((c) => c.path)).toEqual([`/preview-api/${TOKEN}`]);
    const sky = screen.getByRole('article', { name: 'Preview on Sky A' });
    expect(sky.textContent).toContain('Launch day');
    expect(sky.textContent).toContain('More in the reply');
    expect(sky.textContent).toContain('5 min later');
    expect(screen.getByRole('article', { name: 'Preview on TG A' }).textContent).toContain('Launch day on Telegram');
    expect(screen.getByText('Scheduled')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
    expect(document.head.querySelector('meta[name="robots"]')?.getAttribute('content')).toBe('noindex, nofollow');
    expect(document.head.querySelector('meta[name="referrer"]')?.getAttribute('content')).toBe('no-referrer');
  });

  it('says plainly when the link is not valid or has expired', async () => {
    fetchMock.mockImplementation(apiFetch({ 'GET /preview-api/:token': () => apiError(404, 'NOT_FOUND', 'Preview link not found') }));
    open();
    expect(await screen.findByRole('heading', { name: 'This link is not valid or has expired' })).toBeTruthy();
  });

  it('asks for the password on a 401, says when it is wrong, and sends it in X-Preview-Password', async () => {
    const sent: (string | null)[] = [];
    fetchMock.mockImplementation(
      apiFetch({
        'GET /preview-api/:token': (req) => {
          const password = req.headers.get('x-preview-password');
          sent.push(password);
          return password === encodeURIComponent('crème brûlée') ? view() : apiError(401, 'PREVIEW_PASSWORD_REQUIRED', 'This preview link asks for a password');
        },
      }),
    );
    open();
    const field = await screen.findByLabelText('Password');
    expect(screen.getByRole('heading', { name: 'This preview is protected' })).toBeTruthy();
    await userEvent.type(field, 'wrong password');
    await userEvent.click(screen.getByRole('button', { name: 'Show the posts' }));
    expect(await screen.findByText('That password is not right.')).toBeTruthy();
    const again = screen.getByLabelText('Password');
    await userEvent.clear(again);
    await userEvent.type(again, 'crème brûlée');
    await userEvent.click(screen.getByRole('button', { name: 'Show the posts' }));
    expect(await screen.findByRole('heading', { name: 'March for Acme' })).toBeTruthy();
    expect(sent).toEqual([null, 'wrong password', encodeURIComponent('crème brûlée')]);
  });

  it('asks the viewer’s name once (kept on this browser), approves by name and asks for changes with a comment', async () => {
    const calls: Call[] = [];
    let status: PreviewView['groups'][number]['status'] = 'pending_approval';
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /preview-api/:token': () => view({ allowApproval: true }, status),
          'POST /preview-api/:token/groups/:group/approve': () => {
            status = 'approved';
            return { group: 'g-1', status };
          },
          'POST /preview-api/:token/groups/:group/request-changes': () => {
            status = 'changes_requested';
            return { group: 'g-1', status };
          },
        },
        calls,
      ),
    );
    const first = open();
    await screen.findByRole('heading', { name: 'March for Acme' });
    expect(screen.getByText('Enter your name above to approve or ask for changes.')).toBeTruthy();
    await userEvent.type(screen.getByLabelText('Your name'), '  Clara  ');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(localStorage.getItem(NAME_KEY)).toBe('Clara');
    expect(screen.getByText('Clara').closest('p')!.textContent).toContain('Reviewing as Clara');

    // Changes need a comment.
    await userEvent.click(screen.getByRole('button', { name: 'Request changes' }));
    const send = screen.getByRole('button', { name: 'Send request' });
    expect((send as HTMLButtonElement).disabled).toBe(true);
    await userEvent.type(screen.getByLabelText('What should change?'), 'Shorter, please');
    await userEvent.click(send);
    expect(await screen.findByText('Changes requested')).toBeTruthy();
    first.unmount();

    // The next visit knows the name; approving sends it.
    open();
    await screen.findByRole('heading', { name: 'March for Acme' });
    expect(screen.getByText('Clara')).toBeTruthy();
    const group = screen.getByRole('article', { name: /^Post for / });
    await userEvent.click(within(group).getByRole('button', { name: 'Approve' }));
    expect(await within(group).findByText('Approved')).toBeTruthy();
    expect(calls.filter((c) => c.method === 'POST').map((c) => [c.path, c.body])).toEqual([
      [`/preview-api/${TOKEN}/groups/g-1/request-changes`, { name: 'Clara', comment: 'Shorter, please' }],
      [`/preview-api/${TOKEN}/groups/g-1/approve`, { name: 'Clara' }],
    ]);
  });
});
