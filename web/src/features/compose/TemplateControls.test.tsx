import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeProvider } from '../../api/session.js';
import { channel, json, meFixture, resetComposer, serve, type Call } from '../../test/kit.js';

// The typed client keeps the fetch it found when created: stub it before anything imports it.
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ComposeDialog } = await import('./ComposeDialog.js');
const { appendSignature, withAutoSignatures } = await import('./templates.js');
const { emptyState } = await import('./model.js');

const me = meFixture({ timezone: 'UTC' });

const media = { minItems: 0, maxItems: 4, mixed: false, onThreadItems: true, image: { maxCount: 4, mimeTypes: ['image/png'] } };
const rules = { rules: '', maxLength: 4096, counting: 'characters', editor: 'normal', thread: { supported: true, kind: 'reply' }, media, settings: 'No additional settings required', tools: [], defaults: {} };
const stamp = { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const template = { id: 't1', name: 'Launch', description: '', body: { posts: [{ value: [{ content: 'Meet {{product}} today' }] }] }, placeholders: ['product'], ...stamp };
const signatures = [
  { id: 's1', name: 'Team', content: '— the team', autoAdd: true, integrationIds: ['tg'], ...stamp },
  { id: 's2', name: 'Legal', content: 'Terms apply.', autoAdd: false, integrationIds: [], ...stamp },
];

function open() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <MemoryRouter>
      <QueryClientProvider client={queryClient}>
        <MeProvider me={me}>
          <ComposeDialog open onOpenChange={vi.fn()} initial={{ date: '2030-07-01T07:00:00.000Z', integrationIds: ['tg', 'sky'] }} />
        </MeProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
}

afterEach(() => resetComposer(fetchMock));

describe('templates and signatures in the composer', () => {
  it('inserts a template asking its placeholder, adds a signature on demand, saves as a template, and adds the auto-add signature per channel when scheduling', async () => {
    const calls: Call[] = [];
    serve(fetchMock,
      {
        'GET /integrations': () => [channel({ id: 'tg', identifier: 'telegram', name: 'Acme News' }), channel({ id: 'sky', identifier: 'bluesky', name: 'Acme on Bluesky' })],
        'GET /integration-settings/:id': () => ({ output: rules }),
        'GET /templates': () => [template],
        'GET /signatures': () => signatures,
        'POST /templates': (b) => json({ ...template, id: 't2', name: (b as { name: string }).name }, 201),
        'POST /posts': () => json([{ postId: 'p1', integration: 'tg', group: 'g' }], 201),
      },
      calls,
    );
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    // the chosen channel with an auto-add signature is named before anything is saved
    expect((await within(dialog).findByText(/Signature “Team” is added at the end of the post on Acme News when you save/)).textContent).not.toContain('Bluesky');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Templates' }));
    const picker = await screen.findByRole('dialog', { name: 'Insert a template' });
    await userEvent.click(within(picker).getByRole('button', { name: /Launch/ }));
    const values = await screen.findByRole('dialog', { name: 'Use “Launch”' });
    await userEvent.click(within(values).getByRole('button', { name: 'Insert template' }));
    expect(within(values).getByText('Required')).toBeTruthy();
    await userEvent.type(within(values).getByLabelText('product'), 'Tidings');
    await userEvent.click(within(values).getByRole('button', { name: 'Insert template' }));
    const text = within(dialog).getByLabelText<HTMLTextAreaElement>('Post text');
    await waitFor(() => expect(text.value).toBe('Meet Tidings today'));
    // the previews show the text as it will be sent: the auto-add signature on its channel only
    expect(within(dialog).getByRole('article', { name: 'Preview on Acme News' }).textContent).toContain('— the team');
    expect(within(dialog).getByRole('article', { name: 'Preview on Acme on Bluesky' }).textContent).not.toContain('— the team');

    // on demand: appended once to the text shown
    await userEvent.click(within(dialog).getByRole('button', { name: 'Signature' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Add a signature' })).getByRole('button', { name: /Legal/ }));
    await waitFor(() => expect(text.value).toBe('Meet Tidings today\n\nTerms apply.'));

    await userEvent.click(within(dialog).getByRole('button', { name: 'Save as template' }));
    const saveDialog = await screen.findByRole('dialog', { name: 'Save as template' });
    fireEvent.change(within(saveDialog).getByLabelText('Template name'), { target: { value: 'Weekly' } });
    await userEvent.click(within(saveDialog).getByRole('button', { name: 'Save template' }));
    await within(dialog).findByText('Saved as template “Weekly”.');
    expect(calls.find((c) => c.method === 'POST' && c.path === '/templates')!.body).toEqual({ name: 'Weekly', body: { posts: [{ value: [{ content: 'Meet Tidings today\n\nTerms apply.', image: [] }] }] } });

    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/posts')).toBe(true));
    const body = calls.find((c) => c.method === 'POST' && c.path === '/posts')!.body as { posts: { integration: { id: string }; value: { content: string }[] }[] };
    const contentOf = (id: string) => body.posts.find((p) => p.integration.id === id)!.value[0]!.content;
    expect(contentOf('tg')).toContain('Terms apply.');
    expect(contentOf('tg')).toContain('— the team');
    expect(contentOf('sky')).not.toContain('— the team');
  });

  it('never doubles a signature, and leaves edits of existing posts alone', () => {
    expect(appendSignature('Hi', 'Bye')).toBe('Hi\n\nBye');
    expect(appendSignature('Hi\n\nBye  ', 'Bye')).toBe('Hi\n\nBye  ');
    const state = { ...emptyState(['a', 'b']), shared: [{ key: 'k', text: 'Hello', media: [], delay: 0 }] };
    const sigs = [{ id: 's', name: 'S', content: 'Sig', autoAdd: true, integrationIds: ['a'], createdAt: '', updatedAt: '' }];
    const out = withAutoSignatures(state, sigs);
    expect(out.perChannel.a!.items[0]!.text).toBe('Hello\n\nSig');
    expect(out.perChannel.b).toBeUndefined();
    expect(withAutoSignatures(out, sigs).perChannel.a!.items[0]!.text).toBe('Hello\n\nSig');
    expect(withAutoSignatures({ ...state, edit: { group: 'g', rowIds: {}, published: false, drafts: {} } }, sigs)).toEqual({ ...state, edit: { group: 'g', rowIds: {}, published: false, drafts: {} } });
  });
});
