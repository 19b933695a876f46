import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MeProvider } from '../../api/session.js';
import { apiError, channel, json, meFixture, resetComposer, serve, type Call } from '../../test/kit.js';

// The typed client keeps the fetch it found when created: stub it before anything imports it.
const fetchMock = vi.hoisted(() => {
  const fn = vi.fn<(input: RequestInfo | URL, init?: RequestInit) => Promise<Response>>();
  vi.stubGlobal('fetch', fn);
  return fn;
});

const { default: ComposeDialog } = await import('./ComposeDialog.js');
const { ItemEditor } = await import('./ItemEditor.js');

const me = meFixture({ timezone: 'UTC' });
const media = { minItems: 0, maxItems: 4, mixed: false, onThreadItems: true, image: { maxCount: 4, mimeTypes: ['image/png'] } };
const rules = {
  tg: { rules: '', maxLength: 4096, counting: 'characters', editor: 'html', thread: { supported: true, kind: 'reply' }, media, settings: 'No additional settings required', tools: [], defaults: {} },
  sky: { rules: '', maxLength: 300, counting: 'graphemes', editor: 'normal', thread: { supported: true, kind: 'reply' }, media, settings: 'No additional settings required', tools: [], defaults: {} },
};
const channels = [channel({ id: 'tg', identifier: 'telegram', name: 'Acme News' }), channel({ id: 'sky', identifier: 'bluesky', name: 'Acme on Bluesky' })];

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

/** An event-stream body the test writes into as it goes. */
function controlledStream() {
  const enc = new TextEncoder();
  let ctrl!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      ctrl = c;
    },
  });
  return {
    response: () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    send: (event: string, data: unknown) => ctrl.enqueue(enc.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    close: () => ctrl.close(),
  };
}

afterEach(() => resetComposer(fetchMock));

const LONG = `Our spring launch is here: new colours, new sizes, the same care. Read all about it https://example.com/${'a'.repeat(200)}`;

describe('writing help in the composer', () => {
  it('rewrites for both channels as the suggestions stream in, refuses one over its limit, uses the other as that channel’s own text, and schedules with short links on', async () => {
    const calls: Call[] = [];
    const stream = controlledStream();
    serve(
      fetchMock,
      {
        'GET /integrations': () => channels,
        'GET /integration-settings/:id': () => ({ output: rules[(calls.at(-1)!.path.split('/').pop() ?? 'tg') as keyof typeof rules] }),
        'GET /ai/settings': () => ({ configured: true, baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2', vision: false, hasApiKey: false }),
        'POST /ai/rewrite': () => stream.response(),
        'GET /short-links/settings': () => ({ provider: 'builtin', shortLinkLength: 25 }),
        'POST /posts': () => json([{ postId: 'p1', integration: 'tg', group: 'g' }], 201),
      },
      calls,
    );
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    const text = within(dialog).getByLabelText<HTMLTextAreaElement>('Post text');
    fireEvent.change(text, { target: { value: LONG } });
    // the long URL counts in full, and is over Bluesky's 300
    await waitFor(() => expect(dialog.querySelector('[data-channel="sky"].over')).toBeTruthy());

    await userEvent.click(within(dialog).getByRole('button', { name: 'Writing help' }));
    await userEvent.click(await within(dialog).findByRole('radio', { name: 'Rewrite' }));
    await userEvent.type(within(dialog).getByLabelText('Instructions (optional)'), 'punchier');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Rewrite' }));

    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/ai/rewrite')).toBe(true));
    expect(calls.find((c) => c.path === '/ai/rewrite')!.body).toEqual({ content: LONG, integrationIds: ['tg', 'sky'], instructions: 'punchier' });
    expect((fetchMock.mock.calls.find(([r]) => (r instanceof Request ? r.url : String(r)).endsWith('/ai/rewrite'))![1]!.headers as Record<string, string>).accept).toBe('text/event-stream');

    // deltas show while streaming, nothing can be used yet
    stream.send('delta', { index: 0, text: 'Spring launch: ' });
    stream.send('delta', { index: 1, text: 'Spring' });
    const first = await within(dialog).findByLabelText<HTMLTextAreaElement>('Text suggested for Acme News');
    await waitFor(() => expect(first.value).toBe('Spring launch: '));
    stream.send('delta', { index: 0, text: 'new colours.' });
    await waitFor(() => expect(first.value).toBe('Spring launch: new colours.'));
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Text suggested for Acme on Bluesky').value).toBe('Spring');
    expect(within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Use this for Acme News' }).disabled).toBe(true);

    const skyText = `Spring ${'x'.repeat(320)}`;
    stream.send('done', {
      suggestions: [
        { integrationId: 'tg', platform: 'telegram', content: 'Spring launch: new colours, new sizes. https://example.com/spring', length: 64, maxLength: 4096, fits: true },
        { integrationId: 'sky', platform: 'bluesky', content: skyText, length: 327, maxLength: 300, fits: false, note: 'Still 27 over Bluesky’s 300 after asking to shorten' },
      ],
    });
    stream.close();
    await waitFor(() => expect(first.value).toBe('Spring launch: new colours, new sizes. https://example.com/spring'));
    const skyCard = within(dialog).getByRole('listitem', { name: 'Suggestion for Acme on Bluesky' });
    expect(within(skyCard).getByText('Still 27 over Bluesky’s 300 after asking to shorten')).toBeTruthy();
    expect(within(skyCard).getByText('327 / 300')).toBeTruthy();
    expect(within(skyCard).getByRole<HTMLButtonElement>('button', { name: 'Use this for Acme on Bluesky' }).disabled).toBe(true);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Use this for Acme News' }));
    expect(within(dialog).getByText('Used the suggestion for Acme News.')).toBeTruthy();
    // Telegram now has its own text (the suggestion); the shared text stays for Bluesky
    expect(within(dialog).getByRole('tab', { name: /Acme News/ }).textContent).toContain('own text');
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text for Acme News').value).toBe('Spring launch: new colours, new sizes. https://example.com/spring');
    expect(text.value).toBe(LONG);

    // short links: a URL counts as the provider's short link length, so the shared text fits Bluesky
    await userEvent.click(within(dialog).getByRole('switch', { name: 'Shorten links' }));
    await within(dialog).findByText('Links are shortened when the post is published; each counts as 25 characters.');
    const shortened = LONG.replace(/https:\/\/\S+/, 'x'.repeat(25)).length;
    await waitFor(() => expect(dialog.querySelector('[data-channel="sky"] .compose-counter-value')?.textContent).toBe(`${shortened} / 300`));
    expect(dialog.querySelector('[data-channel="sky"].over')).toBeNull();
    expect(within(dialog).getByRole('article', { name: 'Preview on Acme on Bluesky' }).textContent).toContain(`${shortened} / 300`);

    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/posts')).toBe(true));
    const body = calls.find((c) => c.method === 'POST' && c.path === '/posts')!.body as { shortLink: boolean; posts: { integration: { id: string }; value: { content: string }[] }[] };
    expect(body.shortLink).toBe(true);
    expect(body.posts.find((p) => p.integration.id === 'tg')!.value[0]!.content).toBe('<p>Spring launch: new colours, new sizes. https://example.com/spring</p>');
    expect(body.posts.find((p) => p.integration.id === 'sky')!.value[0]!.content).toBe(`<p>${LONG}</p>`);
  }, 30_000);

  it('a channel can shorten its links apart from the post: its counter counts the short link, the body says so for that channel', async () => {
    const calls: Call[] = [];
    serve(
      fetchMock,
      {
        'GET /integrations': () => channels,
        'GET /integration-settings/:id': () => ({ output: rules[(calls.at(-1)!.path.split('/').pop() ?? 'tg') as keyof typeof rules] }),
        'GET /short-links/settings': () => ({ provider: 'builtin', shortLinkLength: 25 }),
        'POST /posts': () => json([{ postId: 'p1', integration: 'tg', group: 'g' }], 201),
      },
      calls,
    );
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: LONG } });
    await waitFor(() => expect(dialog.querySelector('[data-channel="sky"].over')).toBeTruthy());
    await userEvent.click(within(dialog).getByRole('tab', { name: /Acme on Bluesky/ }));
    await userEvent.click(within(dialog).getByRole('switch', { name: 'Shorten links on Acme on Bluesky' }));
    const shortened = LONG.replace(/https:\/\/\S+/, 'x'.repeat(25)).length;
    await waitFor(() => expect(dialog.querySelector('[data-channel="sky"] .compose-counter-value')?.textContent).toBe(`${shortened} / 300`));
    expect(within(dialog).getByRole<HTMLInputElement>('switch', { name: 'Shorten links' }).checked).toBe(false);
    expect(within(dialog).getByText('Links go out as written, except on the channels set to shorten them.')).toBeTruthy();
    await userEvent.click(within(dialog).getByRole('tab', { name: 'All channels' }));
    // Telegram still counts the link in full
    expect(dialog.querySelector('[data-channel="tg"] .compose-counter-value')?.textContent).toBe(`${LONG.length} / 4096`);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Schedule' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'POST' && c.path === '/posts')).toBe(true));
    const body = calls.find((c) => c.method === 'POST' && c.path === '/posts')!.body as { shortLink: boolean; posts: { integration: { id: string }; shortLink?: boolean }[] };
    expect(body.shortLink).toBe(false);
    expect(body.posts.map((p) => [p.integration.id, p.shortLink])).toEqual([
      ['tg', undefined],
      ['sky', true],
    ]);
  }, 20_000);

  it('an edited suggestion is counted again: cut under the limit it can be used', async () => {
    serve(fetchMock, {
      'GET /integrations': () => channels,
      'GET /integration-settings/:id': () => ({ output: rules.sky }),
      'GET /ai/settings': () => ({ configured: true }),
      'POST /ai/thread': () => ({ suggestions: [{ integrationId: 'tg', platform: 'telegram', content: 'a b', items: ['First part', `Second ${'y'.repeat(300)}`], length: null, maxLength: 300, fits: false, note: 'Part 2 is over the limit' }] }),
    });
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    fireEvent.change(within(dialog).getByLabelText('Post text'), { target: { value: 'A long story to split' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Writing help' }));
    await userEvent.click(await within(dialog).findByRole('radio', { name: 'Thread' }));
    await userEvent.selectOptions(within(dialog).getByLabelText('Thread for'), 'tg');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Split into a thread' }));
    const part2 = await within(dialog).findByLabelText<HTMLTextAreaElement>('Text suggested for Acme News, part 2');
    const use = within(dialog).getByRole<HTMLButtonElement>('button', { name: 'Use this for Acme News' });
    expect(use.disabled).toBe(true);
    fireEvent.change(part2, { target: { value: 'Second, shorter' } });
    await waitFor(() => expect(use.disabled).toBe(false));
    await userEvent.click(use);
    // the thread becomes Telegram's own text: two items
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Post text for Acme News').value).toBe('First part');
    expect(within(dialog).getByLabelText<HTMLTextAreaElement>('Thread item 1 for Acme News').value).toBe('Second, shorter');
    // the channel taken off the post: its suggestion has nowhere to go
    await userEvent.click(within(dialog.querySelector<HTMLElement>('.compose-chips')!).getByRole('button', { name: /Acme News/ }));
    const card = within(dialog).getByRole('listitem', { name: /^Suggestion for / });
    await waitFor(() => expect(within(card).getByText('Its channel is no longer chosen for this post.')).toBeTruthy());
    expect(within(card).getByRole<HTMLButtonElement>('button', { name: /^Use this/ }).disabled).toBe(true);
  });

  it('hashtags are added at the end of the text shown', async () => {
    const calls: Call[] = [];
    serve(
      fetchMock,
      {
        'GET /integrations': () => channels,
        'GET /integration-settings/:id': () => ({ output: rules.tg }),
        'GET /ai/settings': () => ({ configured: true }),
        'POST /ai/hashtags': () => ({ suggestions: [{ integrationId: null, platform: null, content: '#spring #launch', items: ['#spring', '#launch'], length: null, maxLength: null, fits: true }] }),
      },
      calls,
    );
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    const text = within(dialog).getByLabelText<HTMLTextAreaElement>('Post text');
    fireEvent.change(text, { target: { value: 'Spring is here' } });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Writing help' }));
    await userEvent.click(await within(dialog).findByRole('radio', { name: 'Hashtags' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Suggest hashtags' }));
    await userEvent.click(await within(dialog).findByRole('button', { name: 'Use this for All channels' }));
    expect(text.value).toBe('Spring is here\n\n#spring #launch');
    expect(calls.find((c) => c.path === '/ai/hashtags')!.body).toEqual({ content: 'Spring is here', count: 5 });
  });

  it('says writing help is off, with the way to the setting, when no model is set (up front or as the API answers)', async () => {
    const configured = false;
    const calls: Call[] = [];
    serve(
      fetchMock,
      {
        'GET /integrations': () => channels,
        'GET /integration-settings/:id': () => ({ output: rules.tg }),
        'GET /ai/settings': () => ({ configured }),
        'POST /ai/draft': () => apiError(404, 'AI_NOT_CONFIGURED', 'Writing help is off: set a model with PUT /ai/settings (Settings → Writing help)'),
      },
      calls,
    );
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Writing help' }));
    const link = await within(dialog).findByRole('link', { name: 'Settings → Writing help' });
    expect(link.getAttribute('href')).toBe('/settings/writing-help');
    expect(link.closest('.notice')!.textContent).toBe('Writing help is off — set a model in Settings → Writing help.');
    expect(within(dialog).queryByRole('radio', { name: 'Draft' })).toBeNull();
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it('the API’s AI_NOT_CONFIGURED (the model removed meanwhile) shows the same notice; a missing brief is named before anything is sent', async () => {
    const calls: Call[] = [];
    serve(
      fetchMock,
      {
        'GET /integrations': () => channels,
        'GET /integration-settings/:id': () => ({ output: rules.tg }),
        'GET /ai/settings': () => ({ configured: true }),
        'POST /ai/draft': () => apiError(404, 'AI_NOT_CONFIGURED', 'Writing help is off: set a model with PUT /ai/settings (Settings → Writing help)'),
      },
      calls,
    );
    open();
    const dialog = await screen.findByRole('dialog', { name: 'New post' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Writing help' }));
    await userEvent.click(await within(dialog).findByRole('radio', { name: 'Draft' }));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Write a draft' }));
    expect(within(dialog).getByRole('alert').textContent).toBe('Write a brief first: what the post is about.');
    expect(calls.some((c) => c.method === 'POST')).toBe(false);
    await userEvent.type(within(dialog).getByLabelText('Brief'), 'spring sale');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Write a draft' }));
    expect(await within(dialog).findByRole('link', { name: 'Settings → Writing help' })).toBeTruthy();
    expect(calls.find((c) => c.path === '/ai/draft')!.body).toEqual({ brief: 'spring sale', integrationIds: ['tg', 'sky'] });
  });

  describe('alt text', () => {
    const poster = { id: '7d1c1a52-3f55-4a43-9a52-0d3b4a6f1e01', path: '/media/o1/poster.png', type: 'image' as const, mimeType: 'image/png', thumbnail: null, alt: '', name: 'poster.png' };
    function editor(onMedia: (fn: (m: (typeof poster)[]) => (typeof poster)[]) => void) {
      const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
      render(
        <QueryClientProvider client={queryClient}>
          <ItemEditor item={{ key: 'k', text: 'Launch', media: [poster], delay: 0 }} index={0} label="Post text" targets={[]} problems={[]} onText={vi.fn()} onDelay={vi.fn()} onMedia={onMedia as never} />
        </QueryClientProvider>,
      );
    }

    it('with a model that takes images: a suggested description, editable, goes into the alt field by Use this', async () => {
      const calls: Call[] = [];
      serve(
        fetchMock,
        {
          'GET /ai/settings': () => ({ configured: true, vision: true }),
          'POST /ai/alt-text': () => ({ suggestions: [{ integrationId: null, platform: null, content: 'A purple poster reading LAUNCH DAY', length: 34, maxLength: 1000, fits: true }] }),
        },
        calls,
      );
      let media = [poster];
      editor((fn) => {
        media = fn(media);
      });
      await userEvent.click(await screen.findByRole('button', { name: 'Suggest alt text for poster.png' }));
      const suggestion = await screen.findByLabelText<HTMLTextAreaElement>('Alt text suggested for poster.png');
      await waitFor(() => expect(suggestion.value).toBe('A purple poster reading LAUNCH DAY'));
      expect(calls.find((c) => c.path === '/ai/alt-text')!.body).toEqual({ mediaId: poster.id });
      fireEvent.change(suggestion, { target: { value: 'A purple poster reading LAUNCH DAY at noon' } });
      await userEvent.click(screen.getByRole('button', { name: 'Use this alt text for poster.png' }));
      expect(media[0]!.alt).toBe('A purple poster reading LAUNCH DAY at noon');
    });

    it('is not offered when the model does not take images', async () => {
      const calls: Call[] = [];
      serve(fetchMock, { 'GET /ai/settings': () => ({ configured: true, vision: false }) }, calls);
      editor(vi.fn());
      await waitFor(() => expect(calls.some((c) => c.path === '/ai/settings')).toBe(true));
      await new Promise((r) => setTimeout(r, 50));
      expect(screen.queryByRole('button', { name: /Suggest alt text/ })).toBeNull();
    });
  });
});
