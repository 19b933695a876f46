import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, meFixture, renderPage, type Call } from '../../test/kit.js';
import { CommentsPanel, mentionQuery } from './CommentsPanel.js';

const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});
afterEach(() => fetchMock.mockReset());

const at = '2026-07-01T07:00:00.000Z';
const comment = (over: Record<string, unknown>) => ({
  id: 'c1',
  group: 'g1',
  postId: null,
  author: { kind: 'user', id: 'user-1', name: 'Olga' },
  body: 'First',
  mentions: [],
  resolved: false,
  resolvedAt: null,
  resolvedBy: null,
  createdAt: at,
  updatedAt: at,
  edited: false,
  ...over,
});

describe('the comments panel', () => {
  it('lists the thread, mentions a member picked after @, resolves, and offers delete on own comments only (a member)', async () => {
    const calls: Call[] = [];
    let thread = [comment({}), comment({ id: 'c2', author: { kind: 'user', id: 'user-2', name: 'Mia' }, body: 'Done already', resolved: true, resolvedAt: at, resolvedBy: 'Mia' })];
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /posts/group/g1/comments': () => ({ comments: thread }),
          'GET /members': () => ({ members: [{ userId: 'user-1', email: 'olga@example.test', name: 'Olga', role: 'member', since: at }, { userId: 'user-2', email: 'mia@example.test', name: 'Mia', role: 'owner', since: at }], invitations: [] }),
          'POST /posts/group/g1/comments': (_r, _u, body) => {
            const made = comment({ id: 'c3', body: (body as { body: string }).body });
            thread = [...thread, made];
            return made;
          },
          'PATCH /comments/c1': () => comment({ resolved: true }),
        },
        calls,
      ),
    );
    renderPage(<CommentsPanel group="g1" />, { me: meFixture({ role: 'member' }) });

    const panel = (await screen.findByRole('heading', { level: 2, name: 'Comments (1 open)' })).closest('section')!;
    const [mine, hers] = await within(panel).findAllByRole('listitem', { name: /Comment by/ });
    expect(within(hers!).getByText('Resolved by Mia')).toBeTruthy();
    expect(within(hers!).getByRole('button', { name: 'Reopen' })).toBeTruthy();
    expect(within(hers!).queryByRole('button', { name: 'Delete' })).toBeNull();
    expect(within(mine!).getByRole('button', { name: 'Delete' })).toBeTruthy();

    const box = within(panel).getByRole('combobox', { name: 'Write a comment' });
    await userEvent.type(box, 'Thanks @mi');
    const option = await within(panel).findByRole('option', { name: '@Mia' });
    await userEvent.click(option);
    expect((box as HTMLTextAreaElement).value).toBe('Thanks @Mia ');
    expect(within(panel).getByText('Notifies Mia')).toBeTruthy();
    await userEvent.click(within(panel).getByRole('button', { name: 'Comment' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'POST')?.body).toEqual({ body: 'Thanks @Mia', mentions: ['user-2'] }));
    expect(await within(panel).findByText('Thanks @Mia')).toBeTruthy();
    expect((box as HTMLTextAreaElement).value).toBe('');

    await userEvent.click(within(mine!).getByRole('button', { name: 'Resolve' }));
    await waitFor(() => expect(calls.find((c) => c.method === 'PATCH')).toMatchObject({ path: '/comments/c1', body: { resolved: true } }));
  });

  it('finds the @word being typed at the caret', () => {
    expect(mentionQuery('hi @ol', 6)).toBe('ol');
    expect(mentionQuery('@', 1)).toBe('');
    expect(mentionQuery('mail a@b', 8)).toBeNull();
    expect(mentionQuery('hi @ol there', 12)).toBeNull();
  });
});
