import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeProvider, type Me } from '../../api/session.js';
import { json, resetComposer, serve, type Call } from '../../test/kit.js';

// The typed client keeps the fetch it found when created: stub it before anything imports it.
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ComposeDialog } = await import('./ComposeDialog.js');
const { draftKey } = await import('./drafts.js');

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
  const { unmount } = render(
    // the app's composer is always inside its router (the notice after a save links to the post)
    <MemoryRouter>
      <QueryClientProvider client={queryClient}>
        <MeProvider me={me}>
          <ComposeDialog open onOpenChange={onOpenChange} {...(initial ? { initial } : {})} />
        </MeProvider>
      </QueryClientProvider>
    </MemoryRouter>,
  );
  return { onOpenChange, queryClient, unmount };
}

afterEach(() => resetComposer(fetchMock));

describe('the compose dialog', () => {
  it('composes for several channels: counters in each counting, previews, an over-long override refused here, API field errors on the fields, then scheduled', async () => {
    const calls: Call[] = [];
    let posted = 0;
    serve(fetchMock,
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
    // Pinterest's settings form comes from its schema, prefilled from the saved defaults (its own chunk: on a busy machine it takes a moment)
    await userEvent.click(within(dialog).getByRole('tab', { name: /Acme Pins/ }));
    expect((await within(dialog).findByLabelText<HTMLInputElement>(/^Title/, {}, { timeout: 5000 })).value).toBe('Saved title');

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
  }, 20_000);

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
    serve(fetchMock,
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

describe('the composer keeps what was typed (issue 25)', () => {
  const NEW = draftKey('u1', 'o1', { kind: 'new' });
  const stored = () => JSON.parse(localStorage.getItem(NEW) ?? 'null') as { shared: { text: string }[]; channels: string[]; when: { date: string; time: string } } | null;

  function serveBasics(calls: Call[] = [], extra: Record<string, (body: unknown) => unknown> = {}) {
    serve(fetchMock,
      {
        'GET /integrations': () => [channel('tg', 'telegram', 'Acme News'), channel('pin', 'pinterest', 'Acme Pins')],
        'GET /integration-settings/:id': () => ({ output: rules[(calls.at(-1)!.path.split('/').pop() ?? 'tg') as keyof typeof rules] }),
        ...extra,
      },
      calls,
    );
  }

  it('an untouched composer closes at once, on Escape and on its close button, and leaves no draft', async () => {
    serveBasics();
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await within(dialog).findByLabelText('Post text');
    await userEvent.keyboard('{Escape}');
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(screen.queryByRole('alertdialog')).toBeNull();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    expect(onOpenChange).toHaveBeenCalledTimes(2);
    await new Promise((r) => setTimeout(r, 500));
    expect(localStorage.getItem(NEW)).toBeNull();
  });

  it('a channel whose settings form reports its prefilled values on mount is no change', async () => {
    const calls: Call[] = [];
    serveBasics(calls);
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['pin'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await userEvent.click(await within(dialog).findByRole('tab', { name: /Acme Pins/ }));
    expect((await within(dialog).findByLabelText<HTMLInputElement>(/^Title/, {}, { timeout: 5000 })).value).toBe('Saved title');
    await userEvent.keyboard('{Escape}');
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(screen.queryByRole('alertdialog')).toBeNull();
  });

  it('with text typed, Escape and the close button ask first; Keep editing keeps it all; Discard closes and forgets the draft', async () => {
    serveBasics();
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    fireEvent.change(await within(dialog).findByLabelText('Post text'), { target: { value: 'Doors open at noon' } });
    // kept while typing (after a short pause)
    await waitFor(() => expect(stored()?.shared[0]?.text).toBe('Doors open at noon'));
    expect(stored()?.channels).toEqual(['tg']);

    await userEvent.keyboard('{Escape}');
    const ask = await screen.findByRole('alertdialog', { name: 'Discard this post?' });
    expect(ask.textContent).toContain('What you wrote and chose here will be lost.');
    // the safe answer has the focus
    expect(document.activeElement).toBe(within(ask).getByRole('button', { name: 'Keep editing' }));
    expect(onOpenChange).not.toHaveBeenCalled();
    await userEvent.click(within(ask).getByRole('button', { name: 'Keep editing' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text').value).toBe('Doors open at noon');
    expect(onOpenChange).not.toHaveBeenCalled();

    // Escape in the question answers it (Keep editing), not the composer under it
    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await screen.findByRole('alertdialog', { name: 'Discard this post?' });
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(onOpenChange).not.toHaveBeenCalled();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Discard' }));
    expect(onOpenChange).toHaveBeenCalledWith(false);
    expect(localStorage.getItem(NEW)).toBeNull();
  });

  it('leaving the page asks the browser to confirm only while there are changes, and writes the draft at once', async () => {
    serveBasics();
    open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    const leave = () => {
      const e = new Event('beforeunload', { cancelable: true });
      window.dispatchEvent(e);
      return e.defaultPrevented;
    };
    await within(dialog).findByLabelText('Post text');
    expect(leave()).toBe(false);
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Almost lost' } });
    // no pause for the debounce: the question itself writes the draft
    expect(leave()).toBe(true);
    expect(stored()?.shared[0]?.text).toBe('Almost lost');
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: '' } });
    expect(leave()).toBe(false);
  });

  it('a date changed or a channel chosen is work too', async () => {
    serveBasics();
    open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    fireEvent.change(await within(dialog).findByLabelText('Time'), { target: { value: '10:15' } });
    await userEvent.keyboard('{Escape}');
    await screen.findByRole('alertdialog', { name: 'Discard this post?' });
    await waitFor(() => expect(stored()?.when).toEqual({ date: '2026-07-01', time: '10:15' }));
  });

  it('reopened, the composer restores the draft (text, channels, date) and says so; Discard draft goes back to an empty post', async () => {
    serveBasics();
    const first = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    let dialog = await screen.findByRole('dialog', { name: 'New post' });
    await userEvent.click(await within(dialog).findByRole('button', { name: /Acme Pins/ }));
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Written before the tab closed' } });
    fireEvent.change(within(dialog).getByLabelText('Date'), { target: { value: '2026-07-03' } });
    // gone without a question (the tab closed): what was typed last is written at once
    first.unmount();
    expect(stored()).toMatchObject({ shared: [{ text: 'Written before the tab closed' }], channels: ['tg', 'pin'], when: { date: '2026-07-03', time: '09:00' } });

    // opened again, for another slot: the draft is what comes back
    const { onOpenChange } = open({ date: '2026-08-01T07:00:00.000Z' });
    dialog = await screen.findByRole('dialog', { name: 'New post' });
    const note = await within(dialog).findByText(/Restored your unsaved draft/);
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text').value).toBe('Written before the tab closed');
    expect(within(dialog).getByLabelText<HTMLInputElement>('Date').value).toBe('2026-07-03');
    expect(within(dialog).getByRole('button', { name: /Acme Pins/ }).getAttribute('aria-pressed')).toBe('true');
    // still unsent work: closing asks
    await userEvent.keyboard('{Escape}');
    await userEvent.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Keep editing' }));

    await userEvent.click(within(note.closest('.compose-restored') as HTMLElement).getByRole('button', { name: 'Discard draft' }));
    await waitFor(() => expect(within(dialog).queryByText(/Restored your unsaved draft/)).toBeNull());
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text').value).toBe('');
    expect(within(dialog).getByLabelText<HTMLInputElement>('Date').value).toBe('2026-08-01');
    expect(within(dialog).getByRole('button', { name: /Acme Pins/ }).getAttribute('aria-pressed')).toBe('false');
    expect(localStorage.getItem(NEW)).toBeNull();
    await userEvent.keyboard('{Escape}');
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('a corrupt or foreign stored draft is ignored: an empty composer, no notice', async () => {
    serveBasics();
    localStorage.setItem(NEW, '{"version":1,"shared":[{"text":42}]');
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    expect((await within(dialog).findByLabelText<HTMLTextAreaElement>('Post text')).value).toBe('');
    expect(within(dialog).queryByText(/Restored your unsaved draft/)).toBeNull();
    await userEvent.keyboard('{Escape}');
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it('saving clears the draft', async () => {
    const calls: Call[] = [];
    serveBasics(calls, { 'POST /posts': () => json([{ postId: 'p1', integration: 'tg', group: 'g' }], 201) });
    // a new post's draft is there already
    localStorage.setItem(NEW, JSON.stringify({ version: 1, savedAt: '2026-06-30T10:00:00.000Z', channels: ['tg'], shared: [{ text: 'Kept for later', media: [], delay: 0 }], perChannel: {}, when: { date: '2026-07-01', time: '09:00' } }));
    const { onOpenChange } = open({ date: '2026-07-01T07:00:00.000Z', integrationIds: ['tg'] });
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await within(dialog).findByText(/Restored your unsaved draft/);
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'Kept for later, now scheduled' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ type: 'schedule', posts: [{ value: [{ content: '<p>Kept for later, now scheduled</p>' }] }] });
    expect(localStorage.getItem(NEW)).toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    expect(localStorage.getItem(NEW)).toBeNull();
  });

  it('an edit keeps its own draft, apart from new posts: restored over the stored post, saved in place (its row ids kept)', async () => {
    const calls: Call[] = [];
    const post = {
      id: 'r1',
      content: '<p>Stored text</p>',
      publishDate: '2026-07-01T07:00:00.000Z',
      releaseURL: null,
      releaseId: null,
      state: 'QUEUE',
      intervalInDays: null,
      group: 'g-7',
      creationMethod: 'WEB',
      settings: { __type: 'telegram' },
      tags: [],
      integration: { id: 'tg', providerIdentifier: 'telegram', name: 'Acme News', picture: null },
      image: [],
      error: null,
      delay: 0,
      publishedAt: null,
      thread: [],
      createdAt: '2026-06-01T00:00:00.000Z',
      updatedAt: '2026-06-01T00:00:00.000Z',
    };
    serveBasics(calls, { 'GET /posts/group/g-7': () => ({ posts: [post] }), 'POST /posts': () => json([{ postId: 'r1', integration: 'tg', group: 'g-7' }], 201) });
    const draft = (text: string) => JSON.stringify({ version: 1, savedAt: '2026-06-30T10:00:00.000Z', channels: ['tg'], shared: [{ text, media: [], delay: 0 }], perChannel: {}, when: { date: '2026-07-01', time: '09:00' } });
    localStorage.setItem(NEW, draft('A new post, unrelated'));
    const EDIT = draftKey('u1', 'o1', { kind: 'edit', group: 'g-7' });
    localStorage.setItem(EDIT, draft('Stored text, edited before the crash'));

    const { onOpenChange } = open({ group: 'g-7' });
    const dialog = await screen.findByRole('dialog', { name: 'Edit post' });
    await within(dialog).findByText(/Restored your unsaved draft/);
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text').value).toBe('Stored text, edited before the crash');
    await userEvent.keyboard('{Escape}');
    expect((await screen.findByRole('alertdialog', { name: 'Discard this post?' })).textContent).toContain('the saved post stays as it was');
    await userEvent.click(within(screen.getByRole('alertdialog')).getByRole('button', { name: 'Keep editing' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(calls.find((c) => c.method === 'POST')!.body).toMatchObject({ posts: [{ group: 'g-7', value: [{ id: 'r1', content: '<p>Stored text, edited before the crash</p>' }] }] });
    expect(localStorage.getItem(EDIT)).toBeNull();
    // the new post's draft is not touched
    expect(stored()?.shared[0]?.text).toBe('A new post, unrelated');
  });
});
