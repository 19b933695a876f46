import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeProvider, type Me } from '../../api/session.js';

// The typed client keeps the fetch it found when created: stub it before anything imports it.
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ComposeDialog } = await import('./ComposeDialog.js');

function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

interface Call {
  method: string;
  path: string;
  body: unknown;
}

/** Answers `"METHOD /path"` after /public/v1 (`:x` matches a segment); 404 otherwise. */
function serve(routes: Record<string, (body: unknown) => unknown>, calls: Call[]) {
  fetchMock.mockImplementation(async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    const path = new URL(req.url).pathname.replace(/^\/public\/v1/, '');
    const text = req.method === 'GET' ? '' : await req.clone().text();
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    calls.push({ method: req.method, path, body });
    for (const [key, handler] of Object.entries(routes)) {
      const [method, pattern] = key.split(' ') as [string, string];
      if (method === req.method && new RegExp(`^${pattern.replace(/:[a-z]+/g, '[^/]+')}$`).test(path)) {
        const out = handler(body);
        return out instanceof Response ? out : json(out);
      }
    }
    return json({ statusCode: 404, code: 'ROUTE_NOT_FOUND', message: `No route ${req.method} ${path}`, requestId: 'r' }, 404);
  });
}

const me: Me = {
  user: { id: 'u1', email: 'olga@example.test', name: 'Olga', timezone: 'Europe/Berlin' },
  organization: { id: 'o1', name: 'Acme', role: 'owner' },
  organizations: [{ id: 'o1', name: 'Acme', role: 'owner' }],
  csrfToken: 'csrf-1',
};

const channel = (id: string, identifier: string, name: string, over: Record<string, unknown> = {}) => ({
  id,
  name,
  identifier,
  picture: null,
  disabled: false,
  profile: null,
  refreshNeeded: false,
  postingTimes: [],
  settings: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

const media = { minItems: 0, maxItems: 4, mixed: false, onThreadItems: true, image: { maxCount: 4, mimeTypes: ['image/png'] } };
const rules = {
  tg: { rules: '', maxLength: 4096, counting: 'characters', editor: 'html', thread: { supported: true, kind: 'reply' }, media: { ...media, maxItems: 10, mixed: true }, settings: 'No additional settings required', tools: [], defaults: {} },
  sky: { rules: 'Up to 4 pictures.', maxLength: 300, counting: 'graphemes', editor: 'normal', thread: { supported: true, kind: 'reply' }, media, settings: 'No additional settings required', tools: [], defaults: {} },
  pin: {
    rules: '',
    maxLength: 500,
    counting: 'characters',
    editor: 'normal',
    thread: { supported: false },
    media: { ...media, minItems: 0, onThreadItems: false },
    settings: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { board: { type: 'string', minLength: 1, description: 'board must be an id' }, title: { type: 'string', maxLength: 100 }, link: { anyOf: [{ type: 'string', format: 'uri' }, { type: 'null' }] } },
      required: ['board'],
    },
    tools: [],
    defaults: { __type: 'pinterest', title: 'Saved title' },
  },
};

function open(initial: Parameters<typeof ComposeDialog>[0]['initial'], onOpenChange = vi.fn()) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  render(
    <QueryClientProvider client={queryClient}>
      <MeProvider me={me}>
        <ComposeDialog open onOpenChange={onOpenChange} {...(initial ? { initial } : {})} />
      </MeProvider>
    </QueryClientProvider>,
  );
  return { onOpenChange, queryClient };
}

afterEach(() => {
  fetchMock.mockReset();
  document.querySelector('.compose-toast-host')?.remove();
});

describe('the compose dialog', () => {
  it('composes for several channels: counters in each counting, previews, an over-long override refused here, API field errors on the fields, then scheduled', async () => {
    const calls: Call[] = [];
    let posted = 0;
    serve(
      {
        'GET /integrations': () => [
          channel('tg', 'telegram', 'Acme News'),
          channel('sky', 'bluesky', 'Acme on Bluesky', { profile: 'acme.bsky.social' }),
          channel('pin', 'pinterest', 'Acme Pins'),
          channel('off', 'x', 'Old X', { disabled: true }),
          channel('stale', 'mastodon', 'Stale Mastodon', { refreshNeeded: true }),
        ],
        'GET /integration-settings/:id': () => ({ output: rules[(calls.at(-1)!.path.split('/').pop() ?? 'tg') as keyof typeof rules] }),
        'GET /find-slot/:id': () => ({ date: '2026-07-02T08:30:00.000Z' }),
        'POST /posts': () => {
          posted += 1;
          if (posted === 1) {
            return json(
              { statusCode: 400, code: 'VALIDATION_FAILED', message: 'posts.2.settings.board: Board is required', fields: [{ path: 'posts.2.settings.board', message: 'Board is required' }], requestId: 'r' },
              400,
            );
          }
          return json([{ postId: 'p1', integration: 'tg', group: 'g' }], 201);
        },
      },
      calls,
    );
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });

    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    const tg = await within(dialog).findByRole('button', { name: /Acme News/ });
    expect(tg.getAttribute('aria-pressed')).toBe('true');
    // channels that cannot publish are shown, not selectable, and say why
    const off = within(dialog).getByRole('button', { name: /Old X/ });
    expect((off as HTMLButtonElement).disabled).toBe(true);
    expect(off.textContent).toContain('Disabled');
    expect(within(dialog).getByRole('button', { name: /Stale Mastodon/ }).textContent).toContain('Needs reconnecting');
    // the date in the person's zone (Berlin, UTC+2 in July)
    expect(within(dialog).getByLabelText<HTMLInputElement>('Date').value).toBe('2026-07-01');
    expect(within(dialog).getByLabelText<HTMLInputElement>('Time').value).toBe('09:00');

    await userEvent.click(within(dialog).getByRole('button', { name: /Acme on Bluesky/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: /Acme Pins/ }));
    const text = within(dialog).getByLabelText('Post text');
    const family = '👨‍👩‍👧‍👦';
    fireEvent.change(text, { target: { value: `Launch ${family} day` } });
    // one counter per channel, each in its platform's counting
    await waitFor(() => expect(dialog.querySelector('[data-channel="sky"] .compose-counter-value')?.textContent).toBe('12 / 300'));
    expect(dialog.querySelector('[data-channel="tg"] .compose-counter-value')?.textContent).toBe(`${`Launch ${family} day`.length} / 4096`);
    // a preview per channel, with its name and the text
    const skyPreview = within(dialog).getByRole('article', { name: 'Preview on Acme on Bluesky' });
    expect(skyPreview.textContent).toContain(`Launch ${family} day`);
    expect(skyPreview.textContent).toContain('@acme.bsky.social');
    expect(within(dialog).getByRole('article', { name: 'Preview on Acme News' })).toBeTruthy();

    // next free slot fills the time
    await userEvent.selectOptions(within(dialog).getByLabelText('Channel for the next free slot'), 'sky');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Next free slot' }));
    await waitFor(() => expect(within(dialog).getByLabelText<HTMLInputElement>('Time').value).toBe('10:30'));
    expect(within(dialog).getByLabelText<HTMLInputElement>('Date').value).toBe('2026-07-02');
    expect(calls.some((c) => c.path === '/find-slot/sky')).toBe(true);

    // Bluesky gets its own, too long, text: its counter goes red and Schedule sends nothing
    await userEvent.click(within(dialog).getByRole('tab', { name: /Acme on Bluesky/ }));
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Its own text' }));
    const own = within(dialog).getByLabelText('Post text for Acme on Bluesky');
    fireEvent.change(own, { target: { value: 'x'.repeat(301) } });
    await waitFor(() => expect(dialog.querySelector('[data-channel="sky"].over')).toBeTruthy());
    // Pinterest's settings form comes from its schema, prefilled from the saved defaults
    await userEvent.click(within(dialog).getByRole('tab', { name: /Acme Pins/ }));
    expect((await within(dialog).findByLabelText<HTMLInputElement>(/^Title/)).value).toBe('Saved title');

    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    const refusal = await within(dialog).findByText(/Not sent: one thing needs fixing first/);
    expect(refusal.closest('[role="alert"]')!.textContent).toContain('Acme on Bluesky · text of the post: Bluesky allows 300 characters (graphemes); this text has 301');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
    // the field says it too, and its tab is shown
    expect(own.getAttribute('aria-invalid')).toBe('true');
    expect(within(dialog).getByRole('tab', { name: /Acme on Bluesky/ }).getAttribute('aria-selected')).toBe('true');

    fireEvent.change(own, { target: { value: 'Short for Bluesky' } });
    await waitFor(() => expect(within(dialog).queryByText(/Not sent/)).toBeNull());

    // the API's refusal of a setting shows on that field of the channel's form, and in its tab
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await within(dialog).findByText(/the service refused one field/);
    await userEvent.click(within(dialog).getByRole('tab', { name: /Acme Pins/ }));
    await waitFor(() => expect(dialog.querySelector('.compose-settings-form .error-detail')?.textContent).toContain('Board is required'));
    expect(within(dialog).getByRole('tab', { name: /Acme Pins/ }).textContent).toContain('1');
    // nothing typed was lost
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text').value).toBe(`Launch ${family} day`);

    fireEvent.change(within(dialog).getByLabelText(/^Board/), { target: { value: '12345' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    const sent = calls.filter((c) => c.method === 'POST').at(-1)!.body;
    expect(sent).toEqual({
      type: 'schedule',
      date: '2026-07-02T08:30:00.000Z',
      shortLink: false,
      tags: [],
      posts: [
        { integration: { id: 'tg' }, value: [{ content: `<p>Launch ${family} day</p>`, image: [], delay: 0 }] },
        { integration: { id: 'sky' }, value: [{ content: '<p>Short for Bluesky</p>', image: [], delay: 0 }] },
        { integration: { id: 'pin' }, value: [{ content: `<p>Launch ${family} day</p>`, image: [], delay: 0 }], settings: { title: 'Saved title', board: '12345' } },
      ],
    });
    expect(await screen.findByText(/Scheduled on Acme News, Acme on Bluesky and Acme Pins/)).toBeTruthy();
  });

  it('edits a draft group in place and lists what still blocks it', async () => {
    const calls: Call[] = [];
    const post = {
      id: 'r1',
      content: '<p>Draft text</p>',
      publishDate: '2026-07-01T07:00:00.000Z',
      releaseURL: null,
      releaseId: null,
      state: 'DRAFT',
      intervalInDays: null,
      group: 'g-1',
      creationMethod: 'WEB',
      settings: { __type: 'bluesky' },
      tags: [],
      integration: { id: 'sky', providerIdentifier: 'bluesky', name: 'Acme on Bluesky', picture: null },
      image: [],
      error: null,
      delay: 0,
      publishedAt: null,
      thread: [{ id: 't1', content: '<p>Reply</p>', image: [], delay: 10, state: 'DRAFT', releaseId: null, releaseURL: null, error: null, publishedAt: null }],
      createdAt: '2026-06-01T00:00:00.000Z',
      updatedAt: '2026-06-01T00:00:00.000Z',
    };
    serve(
      {
        'GET /integrations': () => [channel('sky', 'bluesky', 'Acme on Bluesky')],
        'GET /integration-settings/:id': () => ({ output: rules.sky }),
        'GET /posts/group/g-1': () => ({ posts: [post] }),
        'GET /posts/r1/missing': () => ({ ready: false, missing: [{ field: 'value.0.content', code: 'too_long', message: 'Bluesky allows 300 characters (graphemes); this text has 320' }] }),
        'POST /posts': () => json([{ postId: 'r1', integration: 'sky', group: 'g-3' }], 201),
      },
      calls,
    );
    const { onOpenChange } = open({ group: 'g-1' });
    const dialog = await screen.findByRole('dialog', { name: 'Edit post' });
    expect((await within(dialog).findByLabelText<HTMLTextAreaElement>('Post text')).value).toBe('Draft text');
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Thread item 1').value).toBe('Reply');
    expect((await within(dialog).findAllByText(/text of the post: Bluesky allows 300 characters \(graphemes\); this text has 320/)).length).toBeGreaterThan(0);
    // the channel of the edited post stays (deleting it is the post page's)
    expect(within(dialog).getByRole<HTMLButtonElement>('button', { name: /Acme on Bluesky/ }).disabled).toBe(true);

    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Better text' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save as draft' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({
      type: 'draft',
      date: '2026-07-01T07:00:00.000Z',
      posts: [{ integration: { id: 'sky' }, group: 'g-1', value: [{ id: 'r1', content: '<p>Better text</p>' }, { id: 't1', content: '<p>Reply</p>', delay: 10 }] }],
    });
  });
});
