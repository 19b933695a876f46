import { describe, expect, it } from 'vitest';
import { oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds, published } from '../common/platform.testkit.js';
import type { PlatformAdapter, PublishItem } from '../platform.js';
import { DEFAULT_RATE_LIMIT_SECONDS, dribbbleError } from './errors.js';
import { createDribbbleAdapter, dribbbleIssues } from './index.js';
import { readPicture } from './dribbble.simulator.js';
import { addImage, CALLBACK, DRIBBBLE_APP, dribbbleSimulator, originsFor, OTHER_TEAM, PLAYER, png, rewriteFor, sha, shoot, STUDIO, withDribbble, type TestCtx } from './dribbble.testkit.js';

const adapter = createDribbbleAdapter({ app: DRIBBBLE_APP });
const connect = oauthConnector(adapter, rewriteFor, { redirectUri: CALLBACK });

/**
 * The contract's generic posts, made into shots: every shot needs a title and exactly one
 * picture of a size Dribbble takes, so the contract's text-only posts get a title and a 400×300
 * stand-in picture (its bytes served by the wrapped `openMedia`, since the contract's own
 * `openMedia` always answers its 1×1 PNG). Nothing else is changed.
 */
const STAND_IN_BYTES = png(400, 300, 9);
const STAND_IN: PublishItem['media'][number] = { id: 'stand-in', path: 'https://media.example/stand-in.png', type: 'image', mimeType: 'image/png', size: STAND_IN_BYTES.length, width: 400, height: 300 };
const asShots: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) =>
    adapter.publish(
      { ...input, settings: { title: 'Contract shot', ...input.settings }, item: input.item.media.length > 0 ? input.item : { ...input.item, media: [STAND_IN] } },
      { ...ctx, openMedia: (m) => (m.id === STAND_IN.id ? Promise.resolve(new Blob([STAND_IN_BYTES], { type: 'image/png' })) : ctx.openMedia(m)) },
    ),
};

// Shots have no replies or comments an app can post (metadata: `thread.supported: false`): the
// contract skips its thread case. The contract's picture is a 1×1 PNG, and Dribbble takes only
// 400×300, 800×600 or 1600×1200: the simulator refuses it as Dribbble does (tested below), and
// swapping its bytes would make the case's sha256 check meaningless. "publishes the picture with
// the exact bytes" below runs the same check with a 400×300 PNG.
runSimulatorContract({
  name: 'dribbble',
  adapter: asShots,
  errorsIn200: false,
  start: () => dribbbleSimulator(),
  origins: originsFor,
  connect,
  skip: { media: 'Dribbble refuses the contract’s 1×1 picture (only 400×300, 800×600, 1600×1200); covered below with a 400×300 PNG' },
});

describe('dribbble: connecting', () => {
  it('connects with the public and upload scopes; the token never expires and there is no refresh', async () => {
    await withDribbble({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: String(PLAYER.id), name: PLAYER.name, profile: PLAYER.login, picture: PLAYER.avatar_url, expiresAt: null });
      expect(account.credentials).toMatchObject({ userId: String(PLAYER.id), login: PLAYER.login, accessToken: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const q = new URL(sim.log.find((r) => r.path.startsWith('/oauth/authorize'))!.path, 'http://x').searchParams;
      expect(q.get('scope')).toBe('public upload');
      expect(sim.log.find((r) => r.path.startsWith('/oauth/token'))!.body).toMatchObject({ client_secret: DRIBBBLE_APP.clientSecret, redirect_uri: CALLBACK });
      expect(adapter.refresh).toBeUndefined();
    });
  });

  it('refuses a grant without upload, a wrong secret, and says so when the server has no app', async () => {
    await withDribbble({}, async (sim, ctx) => {
      sim.grantOnly(['public']);
      expect((await platformFailure(connect(sim, ctx))).message).toMatch(/did not grant the upload permission/);
      sim.grantOnly(undefined);
      const wrong = createDribbbleAdapter({ app: { ...DRIBBBLE_APP, clientSecret: 'nope' } });
      expect((await platformFailure(connect(sim, ctx, wrong))).kind).toBe('rejected');
    });
    expect((await platformFailure(createDribbbleAdapter({}).beginConnect!({ state: 's', redirectUri: CALLBACK }, {} as TestCtx))).kind).toBe('unsupported');
  });
});

describe('dribbble: shots', () => {
  it('publishes the picture with the exact bytes, title, plain-text description and tags (202 + Location)', async () => {
    await withDribbble({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const bytes = png(800, 600, 1);
      const image = addImage(ctx, 'p1', bytes, 800, 600);
      const r = published(await shoot(adapter, ctx, account, '<p>Dark <strong>dashboard</strong></p>', [image], { __type: 'dribbble', title: ' Dashboard ', team: '', tags: ['ui', { value: 'dark', label: 'Dark Mode' }] }));
      const shot = sim.shots.find((s) => String(s.id) === r.id)!;
      expect(r.url).toBe(`https://dribbble.com/shots/${shot.id}`);
      expect(shot).toMatchObject({ title: 'Dashboard', description: 'Dark dashboard', tags: ['ui', 'dark mode'], teamId: null });
      expect(shot.image).toMatchObject({ sha256: sha(bytes), size: bytes.length, contentType: 'image/png', width: 800, height: 600, filename: 'shot.png' });
      expect(sim.lookup(r.id)!.mediaSha256).toEqual([sha(bytes)]);
    });
  });

  it('publishes under a team given by id or by URL; refuses a team the account is not in before sending', async () => {
    await withDribbble({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const teams = await adapter.runTool!('teams', {}, withCreds(ctx, account));
      expect(teams).toEqual([{ id: String(STUDIO.id), name: STUDIO.name, url: `https://dribbble.com/${STUDIO.login}` }]);
      const image = addImage(ctx, 'p', png(400, 300, 2), 400, 300);
      const byId = published(await shoot(adapter, ctx, account, '<p>a</p>', [image], { title: 'a', team: String(STUDIO.id) }));
      const byUrl = published(await shoot(adapter, ctx, account, '<p>b</p>', [image], { title: 'b', team: `https://dribbble.com/${STUDIO.login}/` }));
      expect([byId, byUrl].map((r) => sim.shots.find((s) => String(s.id) === r.id)!.teamId)).toEqual([STUDIO.id, STUDIO.id]);
      const before = sim.shots.length;
      const other = await platformFailure(shoot(adapter, ctx, account, '<p>c</p>', [image], { title: 'c', team: String(OTHER_TEAM.id) }));
      expect(other.message).toMatch(/^settings\.team: /);
      expect(sim.shots).toHaveLength(before);
      expect((await platformFailure(adapter.runTool!('buckets', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });

  it('Dribbble’s own checks: a picture of another size, not a picture, no title, 13 tags (422 with the attribute)', async () => {
    await withDribbble({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      // Described with the wrong size, so only Dribbble can see it: it reads the file's header.
      const oneByOne = addImage(ctx, 'tiny', png(1, 1), 400, 300);
      const tiny = await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', [oneByOne]));
      expect({ kind: tiny.kind, message: tiny.message }).toEqual({ kind: 'rejected', message: 'Validation failed: image must be exactly 400x300, 800x600, or 1600x1200 (it is 1x1)' });
      const text = addImage(ctx, 'txt', Buffer.from('not a picture at all'), 400, 300);
      expect((await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', [text]))).message).toBe('Validation failed: image must be a GIF, JPG, or PNG');
      const good = addImage(ctx, 'good', png(1600, 1200, 3), 1600, 1200);
      expect((await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', [good], { title: '  ' }))).message).toBe('settings.title: Required');
      expect((await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', [good], { title: 't', tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }))).message).toBe('settings.tags: At most 12 tags');
      // Known dimensions are checked before anything is sent.
      const known = addImage(ctx, 'known', png(1, 1), 1, 1);
      expect((await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', [known]))).message).toMatch(/exactly 400×300, 800×600, 1600×1200 pixels; this picture is 1×1/);
      expect((await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', []))).message).toBe('A Dribbble shot needs exactly one picture');
      expect(sim.shots).toHaveLength(0);
    });
  });

  it('an account not allowed to upload is refused for good; a revoked grant asks for a reconnect; no replies', async () => {
    await withDribbble({}, async (sim, ctx) => {
      sim.approveAs(42);
      const basic = await connect(sim, ctx);
      const image = addImage(ctx, 'p', png(400, 300), 400, 300);
      const notPro = await platformFailure(shoot(adapter, ctx, basic, '<p>x</p>', [image]));
      expect({ kind: notPro.kind, message: notPro.message }).toEqual({ kind: 'rejected', message: 'You are not allowed to upload shots' });
      sim.approveAs(PLAYER.id);
      const account = await connect(sim, ctx);
      sim.revokeGrants();
      const revoked = await platformFailure(shoot(adapter, ctx, account, '<p>x</p>', [image]));
      expect({ kind: revoked.kind, message: revoked.message }).toEqual({ kind: 'reconnect_required', message: 'Bad credentials' });
      expect((await platformFailure(adapter.publish({ item: { content: 'r', media: [] }, settings: { title: 't' }, replyTo: { id: '1', rootId: '1' }, idempotencyKey: 'r' }, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });

  it('the rate limit: every answer carries X-RateLimit-*, and past it the wait runs to X-RateLimit-Reset', async () => {
    await withDribbble({ perMinute: 3 }, async (sim, ctx) => {
      const account = await connect(sim, ctx); // one call (GET /v2/user)
      const image = addImage(ctx, 'p', png(400, 300), 400, 300);
      published(await shoot(adapter, ctx, account, '<p>1</p>', [image]));
      published(await shoot(adapter, ctx, account, '<p>2</p>', [image]));
      const limited = await platformFailure(shoot(adapter, ctx, account, '<p>3</p>', [image]));
      expect(limited.kind).toBe('rate_limited');
      expect(limited.details.retryAfterSeconds).toBeGreaterThan(0);
      // X-RateLimit-Reset is the end of the minute window, in whole epoch seconds.
      expect(limited.details.retryAfterSeconds).toBeLessThanOrEqual(61);
      expect(sim.shots).toHaveLength(2);
    });
  });

  it('findRecent lists the account’s shots since a time, newest first, named as publish names them', async () => {
    await withDribbble({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const image = addImage(ctx, 'p', png(400, 300), 400, 300);
      const made = [];
      for (const n of [1, 2, 3]) made.push(published(await shoot(adapter, ctx, account, `<p>Shot ${n} &amp; more</p>`, [image])));
      const found = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 2 }, withCreds(ctx, account));
      expect(found.map((f) => f.id)).toEqual([made[2]!.id, made[1]!.id]);
      expect(found[0]!.content).toBe('Shot 3 & more');
      expect(found[0]!.url).toMatch(new RegExp(`^https://dribbble\\.com/shots/${made[2]!.id}-a-shot$`));
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 5 }, withCreds(ctx, account))).toEqual([]);
      await expect(adapter.findRecent!({ since: new Date(0), limit: 5, replyTo: { id: '1', rootId: '1' } }, withCreds(ctx, account))).rejects.toMatchObject({ kind: 'unsupported' });
    });
  });

  it('a shot being processed is not readable yet (GET /v2/shots/{id} answers 404), but publish already knows its id', async () => {
    await withDribbble({ processingReads: 1 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const r = published(await shoot(adapter, ctx, account, '<p>slow</p>', [addImage(ctx, 'p', png(400, 300), 400, 300)]));
      const read = () => fetch(`${sim.origin}/v2/shots/${r.id}`, { headers: { authorization: `Bearer ${account.credentials.accessToken as string}` } });
      expect((await read()).status).toBe(404);
      expect(((await (await read()).json()) as { id: number }).id).toBe(Number(r.id));
    });
  });
});

describe('dribbble: validation and errors', () => {
  const draft = (media: { width: number | null; height: number | null }[]) => ({
    settings: { title: 't' },
    items: [{ content: 'x', media: media.map((m) => ({ type: 'image' as const, mimeType: 'image/png', size: 10, ...m })) }],
  });

  it('names value.0.image when the picture is not 400×300, 800×600 or 1600×1200', () => {
    expect(dribbbleIssues(draft([{ width: 400, height: 300 }]))).toEqual([]);
    expect(dribbbleIssues(draft([{ width: 1600, height: 1200 }]))).toEqual([]);
    expect(dribbbleIssues(draft([{ width: 1200, height: 900 }]))).toEqual([
      { path: 'value.0.image', code: 'dimensions', message: 'A Dribbble shot must be exactly 400×300, 800×600, 1600×1200 pixels; this picture is 1200×900' },
    ]);
    // Unknown dimensions are left to Dribbble, which reads the file.
    expect(dribbbleIssues(draft([{ width: null, height: null }]))).toEqual([]);
    expect(adapter.validate(draft([{ width: 1, height: 1 }])).map((i) => i.path)).toEqual(['value.0.image']);
  });

  it('classifies Dribbble’s answers', () => {
    const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
    expect(dribbbleError(res(202, ''))).toBeUndefined();
    expect(dribbbleError(res(401, { message: 'Bad credentials.' }))?.kind).toBe('reconnect_required');
    expect(dribbbleError(res(403, { message: 'You must have the upload scope to create shots.' }))?.kind).toBe('reconnect_required');
    expect(dribbbleError(res(403, { message: 'You are not allowed to upload shots.' }))?.kind).toBe('rejected');
    const reset = Math.ceil(Date.now() / 1000) + 30;
    expect(dribbbleError(res(429, { message: 'API rate limit exceeded.' }, { 'x-ratelimit-reset': String(reset) }))?.details.retryAfterSeconds).toBeGreaterThanOrEqual(29);
    expect(dribbbleError(res(429, { message: 'API rate limit exceeded.' }))?.details.retryAfterSeconds).toBe(DEFAULT_RATE_LIMIT_SECONDS);
    expect(dribbbleError(res(502, '<html>Bad Gateway</html>'))?.kind).toBe('transient');
    const v = dribbbleError(res(422, { message: 'Validation failed', errors: [{ attribute: 'image', message: 'is too big' }, { attribute: 'title', message: "can't be blank" }] }))!;
    expect({ kind: v.kind, message: v.message }).toEqual({ kind: 'rejected', message: "Validation failed: image is too big; title can't be blank" });
  });

  it('the simulator reads dimensions from PNG, GIF and JPEG headers', () => {
    expect(readPicture(png(400, 300))).toEqual({ type: 'image/png', width: 400, height: 300 });
    const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.from([0x20, 0x03, 0x58, 0x02]), Buffer.alloc(8)]);
    expect(readPicture(gif)).toEqual({ type: 'image/gif', width: 800, height: 600 });
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x04, 0xb0, 0x06, 0x40, 3, 0, 0, 0, 0]);
    expect(readPicture(jpeg)).toEqual({ type: 'image/jpeg', width: 1600, height: 1200 });
    expect(readPicture(Buffer.from('hello world, nothing'))).toBeUndefined();
  });
});
