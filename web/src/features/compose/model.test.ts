import { describe, expect, it } from 'vitest';
import type { Integration, IntegrationSettings, Post } from '../../api/queries.js';
import { buildPostsBody, emptyItem, localProblems, locateInPost, problemsFromApi, settingsErrorTree, stateFromPosts, type ComposeState } from './model.js';

function rules(over: Partial<IntegrationSettings> = {}): IntegrationSettings {
  return {
    rules: '',
    maxLength: 300,
    counting: 'graphemes',
    editor: 'normal',
    thread: { supported: true, kind: 'reply' },
    media: { minItems: 0, maxItems: 4, mixed: false, onThreadItems: true, image: { maxCount: 4, mimeTypes: ['image/png', 'image/jpeg'] }, video: { maxCount: 1, mimeTypes: ['video/mp4'] } },
    settings: 'No additional settings required',
    tools: [],
    defaults: {},
    ...over,
  };
}

const SKY = rules();
const TG = rules({ maxLength: 4096, counting: 'characters', editor: 'html', media: { minItems: 0, maxItems: 10, mixed: true, onThreadItems: true, image: { maxCount: 10, mimeTypes: ['image/png'] }, video: { maxCount: 10, mimeTypes: ['video/mp4'] } } });
const PIN = rules({
  maxLength: 500,
  counting: 'characters',
  thread: { supported: false },
  media: { minItems: 1, maxItems: 5, mixed: true, onThreadItems: false, image: { maxCount: 5, mimeTypes: ['image/png'] } },
  settings: { type: 'object', properties: { board: { type: 'string' } }, required: ['board'] },
  defaults: { board: '42' },
});

function channel(id: string, identifier: Integration['identifier'], over: Partial<Integration> = {}): Integration {
  return { id, name: `${identifier} channel`, identifier, picture: null, disabled: false, profile: null, refreshNeeded: false, sandbox: false, postingTimes: [], settings: {}, createdAt: '', updatedAt: '', ...over };
}

const image = { id: 'm1', path: 'https://cdn.example/m1.png', type: 'image' as const, mimeType: 'image/png', thumbnail: null, alt: 'A cat' };

describe('form state → POST /posts body', () => {
  it('sends each channel its text (shared or its own) as HTML paragraphs, media with alt text, thread items with delays', () => {
    const state: ComposeState = {
      channels: ['tg', 'sky', 'pin'],
      shared: [
        { ...emptyItem(), text: 'Hello & welcome\n\nSecond paragraph', media: [image] },
        { ...emptyItem(), text: 'A reply', delay: 5 },
      ],
      perChannel: {
        sky: { custom: true, items: [{ ...emptyItem(), text: 'Short for Bluesky' }] },
        pin: { custom: false, items: [], settings: { board: '7', title: undefined } },
      },
    };
    const { body, order } = buildPostsBody(state, { type: 'schedule', date: '2026-07-01T09:00:00.000Z', rules: { tg: TG, sky: SKY, pin: PIN } });
    expect(order).toEqual(['tg', 'sky', 'pin']);
    expect(body).toEqual({
      type: 'schedule',
      date: '2026-07-01T09:00:00.000Z',
      shortLink: false,
      tags: [],
      posts: [
        {
          integration: { id: 'tg' },
          value: [
            { content: '<p>Hello &amp; welcome</p><p></p><p>Second paragraph</p>', image: [{ id: 'm1', path: 'https://cdn.example/m1.png', alt: 'A cat' }], delay: 0 },
            { content: '<p>A reply</p>', image: [], delay: 5 },
          ],
        },
        { integration: { id: 'sky' }, value: [{ content: '<p>Short for Bluesky</p>', image: [], delay: 0 }] },
        // no threads on Pinterest: the first item only; its settings as the form holds them
        {
          integration: { id: 'pin' },
          value: [{ content: '<p>Hello &amp; welcome</p><p></p><p>Second paragraph</p>', image: [{ id: 'm1', path: 'https://cdn.example/m1.png', alt: 'A cat' }], delay: 0 }],
          settings: { board: '7' },
        },
      ],
    });
  });

  it('post now sends an empty date; a draft keeps the date', () => {
    const state: ComposeState = { channels: ['sky'], shared: [{ ...emptyItem(), text: 'x' }], perChannel: {} };
    expect(buildPostsBody(state, { type: 'now', date: undefined, rules: { sky: SKY } }).body).toMatchObject({ type: 'now', date: '' });
    expect(buildPostsBody(state, { type: 'draft', date: '2026-01-01T00:00:00.000Z', rules: { sky: SKY } }).body).toMatchObject({ type: 'draft', date: '2026-01-01T00:00:00.000Z' });
  });

  it('editing sends the group and each row’s id (new items and new channels without)', () => {
    const post = (id: string, integrationId: string, content: string, thread: { id: string; content: string; delay: number }[] = []): Post =>
      ({
        id,
        content,
        publishDate: '2026-07-01T09:00:00.000Z',
        releaseURL: null,
        releaseId: null,
        state: 'DRAFT',
        intervalInDays: null,
        group: 'g-1',
        creationMethod: 'WEB',
        settings: { __type: 'x' },
        tags: [],
        integration: { id: integrationId, providerIdentifier: 'bluesky', name: 'n', picture: null },
        image: [],
        error: null,
        delay: 0,
        publishedAt: null,
        thread: thread.map((t) => ({ ...t, image: [], state: 'DRAFT' as const, releaseId: null, releaseURL: null, error: null, publishedAt: null })),
        createdAt: '',
        updatedAt: '',
      });
    const state = stateFromPosts([post('r1', 'tg', '<p>Same</p>', [{ id: 't1', content: '<p>Reply</p>', delay: 3 }]), post('r2', 'sky', '<p>Other</p>')], 'edit');
    expect(state.channels).toEqual(['tg', 'sky']);
    expect(state.shared.map((i) => i.text)).toEqual(['Same', 'Reply']);
    expect(state.perChannel.sky?.custom).toBe(true);
    expect(state.perChannel.tg?.custom).toBe(false);
    expect(state.perChannel.tg?.settings).toEqual({});
    expect(state.edit).toEqual({ group: 'g-1', rowIds: { tg: ['r1', 't1'], sky: ['r2'] }, published: false, drafts: { tg: 'r1', sky: 'r2' } });
    state.shared.push({ ...emptyItem(), text: 'New reply', delay: 1 });
    state.channels.push('new');
    const { body } = buildPostsBody(state, { type: 'schedule', date: '2026-07-01T09:00:00.000Z', rules: { tg: TG, sky: SKY, new: SKY } });
    expect(body.posts[0]).toMatchObject({ group: 'g-1', value: [{ id: 'r1' }, { id: 't1', delay: 3 }, { content: '<p>New reply</p>', delay: 1 }] });
    expect(body.posts[0]!.value[2]).not.toHaveProperty('id');
    expect(body.posts[1]).toMatchObject({ group: 'g-1', value: [{ id: 'r2', content: '<p>Other</p>' }] });
    expect(body.posts[2]).not.toHaveProperty('group');

    // a duplicate is a new post: no group, no ids
    const dup = stateFromPosts([post('r1', 'tg', '<p>Same</p>', [{ id: 't1', content: '<p>Reply</p>', delay: 3 }])], 'duplicate');
    const copy = buildPostsBody(dup, { type: 'draft', date: '2026-07-02T09:00:00.000Z', rules: { tg: TG } }).body;
    expect(copy.posts[0]).not.toHaveProperty('group');
    expect(copy.posts[0]!.value.map((v) => v.id)).toEqual([undefined, undefined]);
  });
});

describe('problems: where they show', () => {
  it('points API field paths at the channel and the field', () => {
    const order = ['tg', 'sky'];
    const p = problemsFromApi(
      [
        { path: 'posts.1.value.0.content', message: 'too long' },
        { path: 'posts.0.value.1.image.2', message: 'bad image' },
        { path: 'posts.0.settings.subreddit.0.value.title', message: 'Required' },
        { path: 'posts.1.integration.id', message: 'gone' },
        { path: 'date', message: 'Required' },
        { path: 'tags', message: '?' },
      ],
      order,
    );
    expect(p).toEqual([
      { channelId: 'sky', where: { kind: 'content', item: 0 }, message: 'too long' },
      { channelId: 'tg', where: { kind: 'media', item: 1, media: 2 }, message: 'bad image' },
      { channelId: 'tg', where: { kind: 'settings', path: ['subreddit', '0', 'value', 'title'] }, message: 'Required' },
      { channelId: 'sky', where: { kind: 'channel' }, message: 'gone' },
      { where: { kind: 'date' }, message: 'Required' },
      { where: { kind: 'other', path: 'tags' }, message: '?' },
    ]);
    expect(settingsErrorTree(p)).toEqual({ subreddit: { 0: { value: { title: { __errors: ['Required'] } } } } });
    expect(locateInPost('value.0.image')).toEqual({ kind: 'media', item: 0 });
    expect(locateInPost('settings')).toEqual({ kind: 'settings', path: [] });
  });

  it('finds what the API would refuse: length in each channel’s counting, media rules, empty posts', () => {
    const over = `${'👍'.repeat(301)}`;
    const state: ComposeState = {
      channels: ['tg', 'sky', 'pin'],
      shared: [{ ...emptyItem(), text: over }, { ...emptyItem(), text: '', media: [image] }],
      perChannel: {},
    };
    const found = localProblems(state, { tg: TG, sky: SKY, pin: PIN }, [channel('tg', 'telegram'), channel('sky', 'bluesky'), channel('pin', 'pinterest', { disabled: true, name: 'Pins' })]);
    expect(found).toEqual([
      // 301 emoji: 602 UTF-16 units, under Telegram's 4096
      { channelId: 'sky', where: { kind: 'content', item: 0 }, message: 'Bluesky allows 300 characters (graphemes); this text has 301' },
      { channelId: 'pin', where: { kind: 'channel' }, message: 'The channel "Pins" is disabled' },
      { channelId: 'pin', where: { kind: 'content', item: 0 }, message: 'Pinterest allows 500 characters; this text has 602' },
      { channelId: 'pin', where: { kind: 'media', item: 0 }, message: 'Pinterest needs at least 1 image or video on the post' },
    ]);
    const tooMany: ComposeState = { channels: ['sky'], shared: [{ ...emptyItem(), text: 'x', media: [image, image, image, image, { ...image, type: 'video' }] }], perChannel: {} };
    expect(localProblems(tooMany, { sky: SKY }, [channel('sky', 'bluesky')]).map((p) => p.message)).toEqual([
      'Bluesky takes at most 4 media item(s) per post; this one has 5',
      'Bluesky does not take images and videos in the same post',
    ]);
    const empty: ComposeState = { channels: ['sky'], shared: [emptyItem()], perChannel: {} };
    expect(localProblems(empty, { sky: SKY }, [channel('sky', 'bluesky')]).map((p) => p.message)).toEqual(['Your post should have at least one character or one image']);
  });
});

describe('short links', () => {
  it('sends shortLink from the switch, and counts each URL as a short link when it is on', () => {
    const url = `https://example.com/${'a'.repeat(300)}`;
    const state: ComposeState = { channels: ['sky'], shared: [{ ...emptyItem(), text: `New ${url}` }], perChannel: {} };
    expect(buildPostsBody(state, { type: 'draft', date: '2030-01-01T00:00:00.000Z', rules: { sky: SKY } }).body.shortLink).toBe(false);
    const on = { ...state, shortLink: true };
    expect(buildPostsBody(on, { type: 'draft', date: '2030-01-01T00:00:00.000Z', rules: { sky: SKY } }).body.shortLink).toBe(true);
    const sky = [channel('sky', 'bluesky')];
    // off: over Bluesky's 300; on, with the provider's length known: 4 + 25
    expect(localProblems(state, { sky: SKY }, sky, 25).map((p) => p.message)).toEqual([`Bluesky allows 300 characters (graphemes); this text has ${4 + url.length}`]);
    expect(localProblems(on, { sky: SKY }, sky, 25)).toEqual([]);
    // on, the length not known yet: counted in full (the server decides)
    expect(localProblems(on, { sky: SKY }, sky).length).toBe(1);
  });

  it('a channel may shorten its links or not, apart from the post; stored rows bring their choice back', () => {
    const url = `https://example.com/${'a'.repeat(300)}`;
    const state: ComposeState = {
      channels: ['sky', 'tg'],
      shared: [{ ...emptyItem(), text: `New ${url}` }],
      perChannel: { sky: { custom: false, items: [], shortLink: true } },
    };
    const { body } = buildPostsBody(state, { type: 'schedule', date: '2030-01-01T00:00:00.000Z', rules: { sky: SKY, tg: TG } });
    expect(body.shortLink).toBe(false);
    expect(body.posts.map((p) => p.shortLink)).toEqual([true, undefined]);
    const chans = [channel('sky', 'bluesky'), channel('tg', 'telegram')];
    expect(localProblems(state, { sky: SKY, tg: TG }, chans, 25)).toEqual([]);
    // the other way round: the post shortens, Telegram keeps its links
    const off = buildPostsBody({ ...state, shortLink: true, perChannel: { tg: { custom: false, items: [], shortLink: false } } }, { type: 'draft', date: '2030-01-01T00:00:00.000Z', rules: {} }).body;
    expect(off.shortLink).toBe(true);
    expect(off.posts.map((p) => p.shortLink)).toEqual([undefined, false]);
    // an own choice equal to the post's is not sent
    expect(buildPostsBody({ ...state, shortLink: true }, { type: 'draft', date: '', rules: {} }).body.posts.map((p) => p.shortLink)).toEqual([undefined, undefined]);

    const stored = (id: string, channelId: string, shortLink: boolean) => ({
      id, content: '<p>Hi</p>', image: [], settings: {}, group: 'g', state: 'QUEUE' as const, publishDate: '2030-01-01T00:00:00.000Z', integration: { id: channelId } as Post['integration'], delay: 0, thread: [], shortLink,
    });
    const edited = stateFromPosts([stored('p1', 'sky', true), stored('p2', 'tg', false)], 'edit');
    expect(edited.shortLink).toBe(true);
    expect(edited.perChannel.sky!.shortLink).toBeUndefined();
    expect(edited.perChannel.tg!.shortLink).toBe(false);
  });
});

describe('settings form labels', () => {
  it('names fields from their API keys', async () => {
    const { humanize } = await import('./SettingsForm.js');
    expect(['post_type', 'callToActionUrl', 'made_with_ai', 'board', 'selfDeclaredMadeForKids', 'categoryId'].map(humanize)).toEqual([
      'Post type',
      'Call to action URL',
      'Made with AI',
      'Board',
      'Self declared made for kids',
      'Category ID',
    ]);
  });
});
