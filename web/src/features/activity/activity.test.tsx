import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiFetch, renderPage, type Call } from '../../test/kit.js';

// the typed client keeps the fetch it finds when created: stub it before anything is imported
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ActivityPage, describeAction } = await import('./ActivityPage.js');

const entry = (id: string, at: string, over: Record<string, unknown> = {}) => ({
  id,
  at,
  actor: { kind: 'user', id: 'u1', name: 'Olga' },
  action: 'post.created',
  target: { kind: 'post', id: `post-${id}`, name: `Post ${id}` },
  details: {},
  ...over,
});

let calls: Call[];
afterEach(() => fetchMock.mockReset());

describe('the Activity page', () => {
  it('lists who did what with a link to the post, filters, and loads more with the cursor', async () => {
    calls = [];
    fetchMock.mockImplementation(
      apiFetch(
        {
          'GET /activity': (_req, url) =>
            url.searchParams.get('cursor') === 'c1'
              ? { entries: [entry('e3', '2025-03-01T10:00:00.000Z', { action: 'webhook.secret_rotated', target: { kind: 'webhook', id: 'w1', name: 'Zapier' } })], nextCursor: null }
              : {
                  entries: [
                    entry('e1', '2025-03-03T10:00:00.000Z', { actor: { kind: 'mcp', id: 'k1', name: 'Claude key' } }),
                    entry('e2', '2025-03-02T10:00:00.000Z', { action: 'post.deleted' }),
                  ],
                  nextCursor: 'c1',
                },
        },
        calls,
      ),
    );
    renderPage(<ActivityPage />);
    const table = await screen.findByRole('table');
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining('Claude key Assistant (MCP)Post createdPost Post e1'),
      expect.stringContaining('Olga PersonPost deletedPost Post e2'),
    ]);
    expect(within(rows[0]!).getByRole('link', { name: 'Post e1' }).getAttribute('href')).toBe('/posts/post-e1');
    // a deleted post has no page to open
    expect(within(rows[1]!).queryByRole('link')).toBeNull();

    await userEvent.click(screen.getByRole('button', { name: 'Load more' }));
    expect(await screen.findByText('Webhook secret rotated')).toBeTruthy();
    expect(calls.at(-1)!.search.get('cursor')).toBe('c1');
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();

    await userEvent.selectOptions(screen.getByLabelText('Who'), 'mcp');
    await userEvent.selectOptions(screen.getByLabelText('What'), 'post.');
    await userEvent.selectOptions(screen.getByLabelText('Target'), 'post');
    const last = () => calls.at(-1)!.search;
    await vi.waitFor(() => expect([last().get('actorKind'), last().get('action'), last().get('targetKind')]).toEqual(['mcp', 'post.', 'post']));
    expect(last().get('cursor')).toBeNull();
  });

  it('names actions in words', () => {
    expect(describeAction('api_key.revoked')).toBe('API key revoked');
    expect(describeAction('member.role_changed')).toBe('Member role changed');
  });
});
