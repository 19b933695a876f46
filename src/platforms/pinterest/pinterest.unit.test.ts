import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import { PlatformError, type OperationContext, type PlatformAdapter, type PublishItem } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, pinterestError, pinterestMessage, uploadError } from './errors.js';
import { createPinterestAdapter } from './index.js';
import type { PinterestSimulator } from './pinterest.simulator.js';
import {
  GIF,
  image,
  MEDIA_ORIGIN,
  MP4,
  pending,
  PINNER,
  PINTEREST_APP,
  pinterestSimulator,
  PNG,
  published,
  publishWith,
  RECIPES,
  rewriteFor,
  originsFor,
  sha,
  TRAVEL,
  video,
  withPinterest,
  type TestCtx,
} from './pinterest.testkit.js';

const adapter = createPinterestAdapter({ app: PINTEREST_APP });
const connect = oauthConnector(adapter, rewriteFor);

/**
 * The contract's generic posts, made into pins: every pin needs a board and a picture or a video,
 * so the contract's text-only posts get the Recipes board and a stand-in picture (the contract
 * opens its own PNG for any media item). Nothing else is changed.
 */
const STAND_IN: PublishItem['media'][number] = { id: 'stand-in', path: 'https://media.example/stand-in.png', type: 'image', mimeType: 'image/png', size: 70, width: 1, height: 1 };
const asPins: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) =>
    adapter.publish({ ...input, settings: { board: RECIPES, ...input.settings }, item: input.item.media.length > 0 ? input.item : { ...input.item, media: [STAND_IN] } }, ctx),
};

// Pinterest has no replies or comments an app can post (the metadata says `thread.supported: false`
// and post validation refuses thread items), so the contract's thread case cannot apply; the
// adapter's answer to a reply is tested below.
runSimulatorContract({ name: 'pinterest', adapter: asPins, errorsIn200: false, start: () => pinterestSimulator(), origins: originsFor, connect });

const DAY = 86_400_000;

describe('pinterest: connecting and tokens', () => {
  it('connects the account with Basic client auth and keeps the 30-day token and its refresh token', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: PINNER.id, name: 'Acme Kitchen', profile: 'acmekitchen', picture: PINNER.profile_image });
      expect(account.credentials).toMatchObject({ userId: PINNER.id, username: 'acmekitchen', accessToken: expect.stringMatching(/^pina_/), refreshToken: expect.stringMatching(/^pinr_/) });
      expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(29 * DAY);
      expect(Date.parse(account.credentials.refreshTokenExpiresAt as string) - Date.now()).toBeGreaterThan(59 * DAY);
      const authorize = sim.log.find((r) => r.path.startsWith('/oauth/?'))!;
      const q = new URL(authorize.path, 'http://x').searchParams;
      expect(q.get('scope')).toBe('boards:read,boards:write,pins:read,pins:write,user_accounts:read');
      expect(q.get('response_type')).toBe('code');
      const token = sim.log.find((r) => r.path === '/v5/oauth/token')!;
      expect(token.headers.authorization).toBe(`Basic ${Buffer.from(`${PINTEREST_APP.clientId}:${PINTEREST_APP.clientSecret}`).toString('base64')}`);
      expect(token.body).toMatchObject({ grant_type: 'authorization_code', redirect_uri: 'http://localhost:3000/integrations/social/test/callback' });
      expect(token.body).not.toHaveProperty('client_secret');
    });
  });

  it('says Pinterest is not configured without an app, and refuses a grant without pins:write', async () => {
    const err = await platformFailure(createPinterestAdapter({}).beginConnect!({ state: 's', redirectUri: 'http://localhost/cb' }, {} as TestCtx));
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'unsupported', message: 'Pinterest is not configured' });
    await withPinterest({}, async (sim, ctx) => {
      sim.grantOnly(['boards:read', 'pins:read', 'user_accounts:read']);
      const refused = await platformFailure(connect(sim, ctx));
      expect({ kind: refused.kind, message: refused.message }).toEqual({ kind: 'rejected', message: 'Pinterest did not grant the pins:write permission: connect again and allow it' });
    });
  });

  it('a wrong client secret is the server’s configuration, told as such', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const wrong = createPinterestAdapter({ app: { ...PINTEREST_APP, clientSecret: 'not-the-secret' } });
      const err = await platformFailure(connect(sim, ctx, wrong));
      expect({ kind: err.kind, message: err.message }).toEqual({
        kind: 'rejected',
        message: "Pinterest refused this server's app (check PINTEREST_CLIENT_ID and PINTEREST_CLIENT_SECRET): Authentication failed.",
      });
    });
  });

  it('refreshes with the rotated refresh token and stores the new one; the old one is dead', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await adapter.refresh!(withCreds(ctx, account));
      expect(first.credentials.refreshToken).not.toBe(account.credentials.refreshToken);
      expect(first.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(first.expiresAt!.getTime() - Date.now()).toBeGreaterThan(29 * DAY);
      const refresh = sim.log.filter((r) => r.path === '/v5/oauth/token').at(-1)!;
      expect(refresh.body).toEqual({ grant_type: 'refresh_token', refresh_token: account.credentials.refreshToken });
      // The old refresh token was retired by the rotation: using it again means the grant is gone.
      const stale = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect(stale.kind).toBe('reconnect_required');
      // The new one works, and the new access token publishes.
      ctx.media.set('p', new Blob([PNG(1)], { type: 'image/png' }));
      const r = published(await publishWith(adapter, ctx, { ...account, credentials: first.credentials }, '<p>fresh</p>', { media: [image('p')] }));
      expect(sim.lookup(r.id)?.text).toBe('fresh');
    });
  });

  it('a revoked grant: the 401 asks for a refresh, and the refused refresh asks for a reconnect', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.revokeGrant();
      ctx.media.set('p', new Blob([PNG(1)], { type: 'image/png' }));
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { media: [image('p')] }));
      expect({ kind: err.kind, code: err.details.platformCode, message: err.message }).toEqual({ kind: 'auth_expired', code: '2', message: 'Authentication failed.' });
      expect((await platformFailure(adapter.refresh!(withCreds(ctx, account)))).kind).toBe('reconnect_required');
      // Without a refresh token, the 401 itself needs a reconnect.
      const noRefresh = { ...account, credentials: { ...account.credentials, refreshToken: null } };
      expect((await platformFailure(publishWith(adapter, ctx, noRefresh, '<p>x</p>', { media: [image('p')] }))).kind).toBe('reconnect_required');
    });
  });
});

describe('pinterest: the boards tool', () => {
  it('lists every board of the account, following the bookmark across pages', async () => {
    await withPinterest({ maxPageSize: 2 }, async (sim, ctx) => {
      for (const name of ['Gardening', 'Knitting', 'Baking']) sim.addBoard({ name, owner: PINNER.id });
      sim.addBoard({ name: 'Hidden', owner: PINNER.id, privacy: 'SECRET' });
      const account = await connect(sim, ctx);
      const boards = (await adapter.runTool!('boards', {}, withCreds(ctx, account))) as { id: string; name: string }[];
      expect(boards.map((b) => b.name)).toEqual(['Baking', 'Knitting', 'Gardening', 'Travel', 'Recipes']);
      expect(boards.find((b) => b.name === 'Recipes')).toEqual({ id: RECIPES, name: 'Recipes' });
      const calls = sim.log.filter((r) => r.path.startsWith('/v5/boards?'));
      expect(calls).toHaveLength(3);
      expect(calls.slice(1).every((c) => new URL(c.path, 'http://x').searchParams.has('bookmark'))).toBe(true);
      expect((await platformFailure(adapter.runTool!('sections', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });
});

describe('pinterest: pins of pictures', () => {
  it('one PNG goes as image_base64 with the settings mapped, and the pin URL is built from its id', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = PNG(7);
      ctx.media.set('p', new Blob([bytes], { type: 'image/png' }));
      const settings = { __type: 'pinterest', board: TRAVEL, title: 'Lisbon in a day', link: 'https://example.com/lisbon', dominant_color: '#aa5500' };
      const r = published(await publishWith(adapter, ctx, account, '<p>Trams &amp; <strong>tiles</strong></p><p>second line</p>', { media: [image('p', { alt: 'A yellow tram' })], settings }));
      expect(r.id).toMatch(/^\d{16,20}$/);
      expect(r.url).toBe(`https://www.pinterest.com/pin/${r.id}/`);
      const body = sim.log.find((l) => l.method === 'POST' && l.path === '/v5/pins')!.body as Record<string, unknown>;
      expect(body).toEqual({
        board_id: TRAVEL,
        title: 'Lisbon in a day',
        description: 'Trams & tiles\nsecond line',
        link: 'https://example.com/lisbon',
        alt_text: 'A yellow tram',
        dominant_color: '#aa5500',
        media_source: { source_type: 'image_base64', content_type: 'image/png', data: bytes.toString('base64') },
      });
      expect(sim.pins[0]).toMatchObject({ boardId: TRAVEL, images: [{ source: 'base64', sha256: sha(bytes), contentType: 'image/png' }] });
    });
  });

  it('a GIF goes as image_url: Pinterest pulls it from its public path, byte for byte', async () => {
    const gif = GIF(3);
    const files = new Map([['/media/2026/01/g.gif', gif]]);
    await withPinterest({ files }, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const r = published(await publishWith(adapter, ctx, account, '<p>animated</p>', { media: [image('g', { mimeType: 'image/gif' })] }));
      expect((sim.log.find((l) => l.method === 'POST' && l.path === '/v5/pins')!.body as { media_source: unknown }).media_source).toEqual({ source_type: 'image_url', url: `${MEDIA_ORIGIN}/media/2026/01/g.gif` });
      expect(host.hits).toEqual(['/media/2026/01/g.gif']);
      expect(sim.pins.find((p) => p.id === r.id)!.images).toEqual([{ source: 'url', url: `${MEDIA_ORIGIN}/media/2026/01/g.gif`, sha256: sha(gif), size: gif.length, contentType: 'image/gif' }]);

      // A public path Pinterest cannot fetch (not https) is refused before anything is sent.
      const before = sim.log.length;
      const local = { ...image('g2', { mimeType: 'image/gif' }), path: 'http://localhost:3000/media/g2.gif' };
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>local</p>', { media: [local] }));
      expect(err.kind).toBe('rejected');
      expect(err.message).toMatch(/not https: set PUBLIC_URL/);
      expect(sim.log.length).toBe(before);
    });
  });

  it('a GIF Pinterest cannot reach is worth retrying (PUBLIC_URL not reachable yet)', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>nowhere</p>', { media: [image('missing', { mimeType: 'image/gif' })] }));
      expect({ kind: err.kind, status: err.details.status }).toEqual({ kind: 'transient', status: 400 });
      expect(err.message).toMatch(/^Unable to reach the URL/);
      expect(sim.pins).toHaveLength(0);
    });
  });

  it('2–5 pictures go as a carousel in order: base64, or URLs when one is a GIF', async () => {
    const gif = GIF(9);
    await withPinterest({ files: new Map([['/media/2026/01/c3.gif', gif], ['/media/2026/01/c1.png', PNG(11)]]) }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = [PNG(1), PNG(2), PNG(3)];
      bytes.forEach((b, i) => ctx.media.set(`c${i}`, new Blob([b], { type: 'image/png' })));
      const settings = { board: RECIPES, title: 'Three steps', link: 'https://example.com/steps' };
      const r = published(await publishWith(adapter, ctx, account, '<p>steps</p>', { media: [image('c0'), image('c1'), image('c2')], settings }));
      const pin = sim.pins.find((p) => p.id === r.id)!;
      expect(pin.sourceType).toBe('multiple_image_base64');
      expect(sim.lookup(r.id)!.mediaSha256).toEqual(bytes.map(sha));
      const items = (sim.log.filter((l) => l.method === 'POST' && l.path === '/v5/pins').at(-1)!.body as { media_source: { items: Record<string, unknown>[] } }).media_source.items;
      expect(items.map((i) => ({ ...i, data: undefined }))).toEqual(bytes.map(() => ({ content_type: 'image/png', data: undefined, title: 'Three steps', link: 'https://example.com/steps' })));

      const mixed = published(await publishWith(adapter, ctx, account, '<p>mixed</p>', { media: [image('c1'), image('c3', { mimeType: 'image/gif' })] }));
      const m = sim.pins.find((p) => p.id === mixed.id)!;
      expect(m.sourceType).toBe('multiple_image_urls');
      expect(m.images.map((i) => i.sha256)).toEqual([sha(PNG(11)), sha(gif)]);
    });
  });

  it('the simulator refuses a carousel of six with Pinterest’s own words, and the adapter never sends one', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const six = Array.from({ length: 6 }, () => ({ content_type: 'image/png', data: PNG(1).toString('base64') }));
      const res = await fetch(`${sim.origin}/v5/pins`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.credentials.accessToken as string}`, 'content-type': 'application/json' },
        body: JSON.stringify({ board_id: RECIPES, media_source: { source_type: 'multiple_image_base64', items: six } }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 1, message: "Invalid parameters: 6 items is too long - 'media_source.items' (constraint: maxItems=5)" });
      const before = sim.log.length;
      const err = await platformFailure(publishWith(adapter, ctx, account, '<p>six</p>', { media: Array.from({ length: 6 }, (_, i) => image(`s${i}`)) }));
      expect(err.message).toBe('A Pinterest carousel takes 2 to 5 pictures; this one has 6 (value.0.image)');
      expect(sim.log.length).toBe(before);
    });
  });

  it('refuses a pin without a board, without media, or as a reply, before sending anything', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const before = sim.log.length;
      const noBoard = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { media: [image('p')], settings: {} }));
      expect(noBoard).toMatchObject({ kind: 'rejected', message: 'A Pinterest pin needs a board (settings.board): choose one with the boards tool' });
      const badBoard = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { media: [image('p')], settings: { board: 'recipes' } }));
      expect(badBoard.message).toMatch(/is not a Pinterest board id \(settings\.board\)/);
      expect((await platformFailure(publishWith(adapter, ctx, account, '<p>text only</p>'))).message).toBe('A Pinterest pin needs a picture or a video (value.0.image)');
      const reply = await platformFailure(publishWith(adapter, ctx, account, '<p>r</p>', { media: [image('p')], replyTo: { id: '1', rootId: '1' } }));
      expect(reply.kind).toBe('unsupported');
      expect(sim.log.length).toBe(before);
      // A board of someone else: Pinterest's own refusal.
      ctx.media.set('p', new Blob([PNG(1)], { type: 'image/png' }));
      const theirs = await platformFailure(publishWith(adapter, ctx, account, '<p>x</p>', { media: [image('p')], settings: { board: '1020276715534519999' } }));
      expect({ kind: theirs.kind, message: theirs.message }).toEqual({ kind: 'rejected', message: 'Board not found.' });
    });
  });
});

describe('pinterest: validation', () => {
  const img = (w = 100, h = 150) => ({ type: 'image' as const, mimeType: 'image/png', size: 10, width: w, height: h });
  const vid = { type: 'video' as const, mimeType: 'video/mp4', size: 10, duration: 5 };
  const check = (media: ReturnType<typeof img | (() => typeof vid)>[], settings: Record<string, unknown> = { board: RECIPES }) =>
    adapter.validate({ settings, items: [{ content: 'x', media }] }).map((i) => `${i.path} ${i.code}`);

  it('one picture, 2–5 pictures of one size, or one video with one cover', () => {
    expect(check([img()])).toEqual([]);
    expect(check([img(), img(), img()])).toEqual([]);
    expect(check([vid, img()])).toEqual([]);
    expect(check([img(), vid])).toEqual([]);
    expect(check([vid])).toEqual(['value.0.image video_cover_required']);
    expect(check([vid, img(), img()])).toEqual(['value.0.image video_cover_only']);
    expect(check([vid, vid, img()])).toEqual(['value.0.image one_video']);
    // Six: the metadata's count (5) refuses it in post validation; publishing refuses it too (below).
    expect(check([img(), img(), img(), img(), img(), img()])).toEqual([]);
    expect(check([img(100, 150), img(200, 300)])).toEqual(['value.0.image carousel_dimensions']);
    expect(adapter.validate({ settings: { board: RECIPES }, items: [{ content: 'x', media: [img(100, 150), img(200, 300)] }] })[0]!.message).toBe(
      'The pictures of a Pinterest carousel must all have the same size; these are 100×150, 200×300',
    );
  });

  it('names a board that is not an id and an over-long link', () => {
    expect(check([img()], { board: 'My recipes' })).toEqual(['settings.board invalid_board']);
    expect(check([img()], { board: RECIPES, link: `https://example.com/${'a'.repeat(2048)}` })).toEqual(['settings.link too_long']);
  });
});

describe('pinterest: video pins (asynchronous)', () => {
  async function startVideo(sim: PinterestSimulator, ctx: TestCtx, opts: { cover?: Buffer } = {}) {
    const account = await connect(sim, ctx);
    const bytes = MP4(1, 4096);
    const cover = opts.cover ?? PNG(5);
    ctx.media.set('v', new Blob([bytes], { type: 'video/mp4' }));
    ctx.media.set('cover', new Blob([cover], { type: 'image/png' }));
    const first = pending(await publishWith(adapter, ctx, account, '<p>Watch the soup</p>', { media: [video('v', bytes.length), image('cover', { alt: 'Soup' })], settings: { board: RECIPES, title: 'Soup video' } }));
    return { account, bytes, cover, first, c: withCreds(ctx, account) };
  }

  it('registers, uploads as a presigned POST, waits for several polls, then creates the pin once with its cover', async () => {
    await withPinterest({ videoPollsUntilReady: 2 }, async (sim, ctx) => {
      const { bytes, cover, first, c } = await startVideo(sim, ctx);
      expect(first.pollAfterMs).toBe(0);
      const [m] = [...sim.media.values()];
      expect(m).toMatchObject({ status: 'registered', uploads: 0 });
      expect(sim.log.filter((l) => l.method === 'POST' && l.path === '/v5/media')[0]!.body).toEqual({ media_type: 'video' });

      const uploaded = pending(await adapter.checkPublish!(first.token, c));
      expect(m).toMatchObject({ status: 'processing', uploads: 1, sha256: sha(bytes), size: bytes.length });
      expect(sim.log.filter((l) => l.method === 'POST' && l.path === '/')).toHaveLength(1);

      const p1 = pending(await adapter.checkPublish!(uploaded.token, c));
      const p2 = pending(await adapter.checkPublish!(p1.token, c));
      expect(sim.pins).toHaveLength(0);
      const done = published(await adapter.checkPublish!(p2.token, c));
      expect(sim.lookup(done.id)).toEqual({ text: 'Watch the soup', mediaSha256: [sha(bytes), sha(cover)] });
      const created = sim.log.find((l) => l.method === 'POST' && l.path === '/v5/pins')!.body as Record<string, unknown>;
      expect(created).toEqual({
        board_id: RECIPES,
        title: 'Soup video',
        description: 'Watch the soup',
        alt_text: 'Soup',
        media_source: { source_type: 'video_id', media_id: m!.id, cover_image_content_type: 'image/png', cover_image_data: cover.toString('base64') },
      });
      // Checked again with the same token (an answer lost on the way): the same pin, never a second.
      expect(await adapter.checkPublish!(p2.token, c)).toEqual(done);
      expect(await adapter.checkPublish!(first.token, c)).toEqual(done);
      expect(sim.pins).toHaveLength(1);
      expect(m!.uploads).toBe(1);
    });
  });

  it('a video Pinterest cannot process fails the post with its status', async () => {
    await withPinterest({ videoPollsUntilReady: 1 }, async (sim, ctx) => {
      const { first, c } = await startVideo(sim, ctx);
      sim.failVideoProcessing();
      let token = first.token;
      for (let i = 0; i < 2; i++) token = pending(await adapter.checkPublish!(token, c)).token;
      const err = await platformFailure(adapter.checkPublish!(token, c));
      expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'rejected', message: 'Pinterest could not process the video (media upload status "failed")' });
      expect(sim.pins).toHaveLength(0);
    });
  });

  it('a check that fails on the way is checked again with the same token, never uploading or creating twice', async () => {
    await withPinterest({ videoPollsUntilReady: 2 }, async (sim, ctx) => {
      const { first, c } = await startVideo(sim, ctx);
      // The status read fails: nothing happened, the same token goes on.
      sim.inject({ path: /^\/v5\/media\/\d+$/, status: 503, body: { code: 0, message: 'Service unavailable' } });
      expect((await platformFailure(adapter.checkPublish!(first.token, c))).kind).toBe('transient');
      const uploaded = pending(await adapter.checkPublish!(first.token, c));
      // Checked again with the token from before the upload: Pinterest has the file, it is not sent again.
      const again = pending(await adapter.checkPublish!(first.token, c));
      const [m] = [...sim.media.values()];
      expect(m!.uploads).toBe(1);
      expect(JSON.parse(again.token)).toMatchObject({ stage: 'processing' });
      expect(JSON.parse(again.token)).not.toHaveProperty('upload');
      pending(await adapter.checkPublish!(uploaded.token, c));

      // The pin creation arrives, but its answer is lost: the client gives up after the request left,
      // as the HTTP client does on a timeout (a transient error whose outcome is unknown).
      sim.delayPinCreation(300);
      const cutting: OperationContext = {
        ...c,
        http: {
          request: (req) =>
            req.method === 'POST' && req.url.endsWith('/v5/pins')
              ? Promise.race([
                  ctx.http.request(req),
                  new Promise<never>((_, reject) => setTimeout(() => reject(new PlatformError('transient', 'POST api.pinterest.com timed out', { outcomeUnknown: true })), 50)),
                ])
              : ctx.http.request(req),
        },
      };
      const lost = await platformFailure(adapter.checkPublish!(uploaded.token, cutting));
      // Checked again only once Pinterest has had time to list the pin.
      expect({ kind: lost.kind, wait: lost.details.retryAfterSeconds }).toEqual({ kind: 'transient', wait: 30 });
      for (let i = 0; i < 100 && sim.pins.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      sim.delayPinCreation(0);
      expect(sim.pins).toHaveLength(1);
      const done = published(await adapter.checkPublish!(uploaded.token, c));
      expect(done.id).toBe(sim.pins[0]!.id);
      expect(sim.pins).toHaveLength(1);
      expect(sim.log.filter((l) => l.method === 'POST' && l.path === '/v5/pins')).toHaveLength(1);
    });
  });

  it('an upload whose signed policy expired is registered again and sent to the new one', async () => {
    await withPinterest({ videoPollsUntilReady: 0 }, async (sim, ctx) => {
      const { first, c, bytes } = await startVideo(sim, ctx);
      const [old] = [...sim.media.values()];
      old!.policyExpiresAt = Date.now() - 1;
      const renewed = pending(await adapter.checkPublish!(first.token, c));
      expect(renewed.pollAfterMs).toBe(0);
      expect(sim.media.size).toBe(2);
      const fresh = [...sim.media.values()][1]!;
      expect(JSON.parse(renewed.token)).toMatchObject({ stage: 'upload', mediaId: fresh.id });
      const uploaded = pending(await adapter.checkPublish!(renewed.token, c));
      expect(fresh).toMatchObject({ uploads: 1, sha256: sha(bytes) });
      const done = published(await adapter.checkPublish!(uploaded.token, c));
      expect(sim.pins.find((p) => p.id === done.id)!.mediaId).toBe(fresh.id);
    });
  });

  it('streams the video from the stored Blob, never reading the file whole', async () => {
    let streamed = 0;
    class StreamOnlyBlob extends Blob {
      override arrayBuffer(): Promise<ArrayBuffer> {
        return Promise.reject(new Error('the stored file was read whole'));
      }
      override text(): Promise<string> {
        return Promise.reject(new Error('the stored file was read whole'));
      }
      override bytes(): Promise<Uint8Array<ArrayBuffer>> {
        return Promise.reject(new Error('the stored file was read whole'));
      }
      override stream() {
        streamed++;
        return super.stream();
      }
    }
    await withPinterest({ videoPollsUntilReady: 0 }, async (sim, ctx) => {
      const { first, c } = await startVideo(sim, ctx);
      const bytes = MP4(3, 256 * 1024);
      ctx.media.set('v', new StreamOnlyBlob([bytes], { type: 'video/mp4' }));
      pending(await adapter.checkPublish!(first.token, c));
      expect(streamed).toBe(1);
      expect([...sim.media.values()][0]).toMatchObject({ sha256: sha(bytes), size: bytes.length, uploads: 1 });
      const upload = sim.log.find((l) => l.method === 'POST' && l.path === '/')!;
      expect(Number(upload.headers['content-length'])).toBeGreaterThan(bytes.length);
    });
  });

  it('a cover that is not JPEG/PNG goes by its public URL; bytes that are not a video fail processing', async () => {
    const gifCover = GIF(4);
    await withPinterest({ videoPollsUntilReady: 0, files: new Map([['/media/2026/01/gc.gif', gifCover]]) }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = MP4(2, 512);
      ctx.media.set('v', new Blob([bytes], { type: 'video/mp4' }));
      ctx.media.set('gc', new Blob([gifCover], { type: 'image/gif' }));
      const c = withCreds(ctx, account);
      let r = await publishWith(adapter, ctx, account, '<p>gif cover</p>', { media: [video('v', bytes.length), image('gc', { mimeType: 'image/gif' })] });
      while (r.status === 'pending') r = await adapter.checkPublish!(r.token, c);
      expect(sim.pins.find((p) => p.id === r.id)!.cover).toEqual({ source: 'url', url: `${MEDIA_ORIGIN}/media/2026/01/gc.gif`, sha256: sha(gifCover), size: gifCover.length, contentType: 'image/gif' });

      ctx.media.set('junk', new Blob([Buffer.from('not a video at all')], { type: 'video/mp4' }));
      let j = await publishWith(adapter, ctx, account, '<p>junk</p>', { media: [video('junk', 18), image('gc', { mimeType: 'image/gif' })] });
      const err = await platformFailure(
        (async () => {
          while (j.status === 'pending') j = await adapter.checkPublish!(j.token, c);
        })(),
      );
      expect(err.kind).toBe('rejected');
    });
  });
});

describe('pinterest: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });

  it('sorts Pinterest’s {code, message} answers into kinds, keeping its words', () => {
    expect(pinterestError(res(200, {}))).toBeUndefined();
    expect(pinterestError(res(401, { code: 2, message: 'Authentication failed.' }))).toMatchObject({ kind: 'auth_expired', message: 'Authentication failed.', details: { platformCode: '2', status: 401 } });
    expect(pinterestError(res(401, { code: 2, message: 'Authentication failed.' }), { canRefresh: false })!.kind).toBe('reconnect_required');
    expect(pinterestError(res(429, { code: 8, message: 'You have exceeded your rate limit. Try again later.' }, { 'x-ratelimit-reset': '42' }))).toMatchObject({
      kind: 'rate_limited',
      message: 'You have exceeded your rate limit. Try again later.',
      details: { retryAfterSeconds: 42, platformCode: '8' },
    });
    expect(pinterestError(res(429, { code: 8, message: 'slow down' }))!.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(pinterestError(res(429, { code: 8, message: 'slow down' }, { 'retry-after': '7' }))!.details.retryAfterSeconds).toBe(7);
    expect(pinterestError(res(503, { code: 0, message: 'Service unavailable' }))!.kind).toBe('transient');
    expect(pinterestError(res(400, { code: 1, message: "Invalid parameters: 'board_id' is a required property" }))).toMatchObject({ kind: 'rejected', message: "Invalid parameters: 'board_id' is a required property" });
    expect(pinterestError(res(404, { code: 404, message: 'Board not found.' }))!.kind).toBe('rejected');
    expect(pinterestError(res(403, { code: 3, message: 'Your application does not have the required scope(s): pins:write' }))!.kind).toBe('reconnect_required');
    expect(pinterestError(res(400, { code: 1, message: 'Unable to reach the URL: https://x/y.gif' }))!.kind).toBe('transient');
    expect(pinterestError(res(502, '<html>Bad gateway</html>'))).toMatchObject({ kind: 'transient', message: '<html>Bad gateway</html>' });
  });

  it('cuts an echoed base64 picture out of a message', () => {
    const echoed = `The image data is not valid: ${'QUJD'.repeat(200)} (media_source)`;
    expect(pinterestMessage(echoed)).toBe('The image data is not valid: … (media_source)');
    expect(pinterestMessage('word '.repeat(100))).toHaveLength(300);
  });

  it('reads S3’s XML errors of the video upload', () => {
    const xml = (code: string, message: string) => `<?xml version="1.0"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
    const expired = uploadError(res(403, xml('AccessDenied', 'Invalid according to Policy: Policy expired.')))!;
    expect({ kind: expired.kind, expired: expired.expired, message: expired.message }).toEqual({ kind: 'rejected', expired: true, message: "Pinterest's video upload failed: Invalid according to Policy: Policy expired." });
    expect(uploadError(res(400, xml('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size')))!.kind).toBe('rejected');
    expect(uploadError(res(503, xml('SlowDown', 'Please reduce your request rate.')))!.kind).toBe('transient');
    expect(uploadError(res(204, ''))).toBeUndefined();
  });

  it('a real rate limit of the simulator: 429 code 8 with the reset of its window', async () => {
    await withPinterest({ rateLimitPerMinute: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      // user_account at connect was the first call of the minute.
      await adapter.runTool!('boards', {}, withCreds(ctx, account));
      const err = await platformFailure(adapter.runTool!('boards', {}, withCreds(ctx, account)));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'rate_limited', code: '8' });
      expect(err.details.retryAfterSeconds).toBeGreaterThan(0);
      expect(err.details.retryAfterSeconds).toBeLessThanOrEqual(60);
    });
  });
});

describe('pinterest: recent pins and analytics', () => {
  it('finds the account’s recent pins newest first, with their descriptions', async () => {
    await withPinterest({ maxPageSize: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('p', new Blob([PNG(1)], { type: 'image/png' }));
      const since = new Date(Date.now() - 1000);
      const ids = [];
      for (const n of [1, 2, 3]) ids.push(published(await publishWith(adapter, ctx, account, `<p>pin ${n}</p>`, { media: [image('p')] })).id);
      sim.pins[0]!.createdAt = Date.now() - 60_000;
      const recent = await adapter.findRecent!({ since, limit: 10 }, withCreds(ctx, account));
      expect(recent.map((r) => [r.id, r.content, r.url])).toEqual([
        [ids[2], 'pin 3', `https://www.pinterest.com/pin/${ids[2]}/`],
        [ids[1], 'pin 2', `https://www.pinterest.com/pin/${ids[1]}/`],
      ]);
      expect(new URL(sim.log.filter((l) => l.path.startsWith('/v5/pins?'))[0]!.path, 'http://x').searchParams.get('pin_filter')).toBe('exclude_repins');
    });
  });

  it('account analytics: one point per day for each figure, the change of the second half against the first', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const today = Math.floor(Date.now() / DAY) * DAY;
      const day = (n: number) => new Date(today - n * DAY).toISOString().slice(0, 10);
      sim.setAccountAnalytics(PINNER.id, [
        { date: day(3), metrics: { IMPRESSION: 10, SAVE: 1, ENGAGEMENT: 2, PIN_CLICK: 3, OUTBOUND_CLICK: 4 } },
        { date: day(0), metrics: { IMPRESSION: 30, SAVE: 2 } },
      ]);
      const series = await adapter.analytics!(4, withCreds(ctx, account));
      expect(series.map((s) => s.label)).toEqual(['Impressions', 'Engagements', 'Pin clicks', 'Outbound clicks', 'Saves']);
      expect(series[0]).toEqual({ label: 'Impressions', percentageChange: 200, data: [3, 2, 1, 0].map((n) => ({ date: day(n), total: n === 3 ? 10 : n === 0 ? 30 : 0 })) });
      const q = new URL(sim.log.find((l) => l.path.startsWith('/v5/user_account/analytics'))!.path, 'http://x').searchParams;
      expect(Object.fromEntries(q)).toEqual({ start_date: day(3), end_date: day(0), metric_types: 'IMPRESSION,ENGAGEMENT,PIN_CLICK,OUTBOUND_CLICK,SAVE' });
      // Pinterest keeps 90 days: a longer span is cut, not refused.
      const long = await adapter.analytics!(365, withCreds(ctx, account));
      expect(long[0]!.data).toHaveLength(90);
    });
  });

  it('pin analytics: daily impressions, clicks and saves of one pin', async () => {
    await withPinterest({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      ctx.media.set('p', new Blob([PNG(1)], { type: 'image/png' }));
      const pin = published(await publishWith(adapter, ctx, account, '<p>counted</p>', { media: [image('p')] }));
      const today = new Date(Math.floor(Date.now() / DAY) * DAY).toISOString().slice(0, 10);
      sim.setPinAnalytics(pin.id, [{ date: today, metrics: { IMPRESSION: 120, PIN_CLICK: 7, OUTBOUND_CLICK: 3, SAVE: 5 } }]);
      const series = await adapter.postAnalytics!(pin.id, 1, withCreds(ctx, account));
      expect(series).toEqual([
        { label: 'Impressions', percentageChange: 0, data: [{ date: today, total: 120 }] },
        { label: 'Pin clicks', percentageChange: 0, data: [{ date: today, total: 7 }] },
        { label: 'Outbound clicks', percentageChange: 0, data: [{ date: today, total: 3 }] },
        { label: 'Saves', percentageChange: 0, data: [{ date: today, total: 5 }] },
      ]);
      const q = new URL(sim.log.find((l) => l.path.includes('/analytics'))!.path, 'http://x').searchParams;
      expect(q.get('metric_types')).toBe('IMPRESSION,PIN_CLICK,OUTBOUND_CLICK,SAVE');
      expect((await platformFailure(adapter.postAnalytics!('1125968647761599999', 7, withCreds(ctx, account)))).message).toBe('Pin not found.');
    });
  });
});
