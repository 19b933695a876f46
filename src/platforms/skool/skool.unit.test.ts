import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds } from '../common/platform.testkit.js';
import type { PlatformAdapter, PublishMedia } from '../platform.js';
import { skoolError } from './errors.js';
import { createSkoolAdapter, NO_LABEL, skoolPostUrl } from './index.js';
import { ANNOUNCE, BUILDERS, HELP, MEMBER, originsFor, PLAIN, skoolSimulator, VIP, WINS, withSkool, type TestCtx } from './skool.testkit.js';

/**
 * Skool has no public API: the simulator imitates what the reference says of its private web API
 * and ASSUMES the rest (error body shape, 429, limits). These tests check the adapter against those
 * assumptions; they do not show that Skool behaves so.
 */

const adapter = createSkoolAdapter();
const SETTINGS = { group: BUILDERS.id, label: WINS.id, title: 'Weekly wins' };

/** The contract's posts carry no settings; every Skool post needs a group, a label and a title. */
const withSettings: PlatformAdapter = { ...adapter, publish: (input, ctx) => adapter.publish({ ...input, settings: { ...SETTINGS, ...input.settings } }, ctx) };

runSimulatorContract({ name: 'skool', adapter: withSettings, errorsIn200: false, start: () => skoolSimulator(), origins: originsFor, connect: { authToken: MEMBER.authToken, clientId: MEMBER.clientId } });

const connect = (ctx: TestCtx) => adapter.connectWithCredentials!({ authToken: ` ${MEMBER.authToken} `, clientId: MEMBER.clientId }, ctx);
const item = (content: string, media: PublishMedia[] = []) => ({ content, media });

describe('skool: connecting with the session cookies', () => {
  it('verifies the cookies with /self and keeps the user id; the profile is the user', async () => {
    await withSkool(async (sim, ctx) => {
      const a = await connect(ctx);
      expect(a).toMatchObject({ internalId: MEMBER.id, name: 'Ada Lovelace', profile: MEMBER.name, picture: MEMBER.picture, expiresAt: null });
      expect(a.credentials).toEqual({ authToken: MEMBER.authToken, clientId: MEMBER.clientId, userId: MEMBER.id });
      expect(sim.log.find((l) => l.path === '/self')!.headers.cookie).toBe(`auth_token=${MEMBER.authToken}; client_id=${MEMBER.clientId}`);
    });
  });

  it('refuses a wrong auth_token or client_id naming authToken', async () => {
    await withSkool(async (_sim, ctx) => {
      for (const input of [{ authToken: 'expired', clientId: MEMBER.clientId }, { authToken: MEMBER.authToken, clientId: 'other' }]) {
        const e = await platformFailure(adapter.connectWithCredentials!(input, ctx));
        expect({ kind: e.kind, field: e.details.field }).toEqual({ kind: 'rejected', field: 'authToken' });
        expect(e.message).toMatch(/did not accept these session cookies.*unauthorized/);
      }
    });
  });

  it('a session that ended (logged out of Skool) makes publishing reconnect_required, never silent', async () => {
    await withSkool(async (sim, ctx) => {
      const a = await connect(ctx);
      sim.logout(MEMBER.id);
      const e = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: SETTINGS, idempotencyKey: 'k' }, withCreds(ctx, a)));
      expect(e.kind).toBe('reconnect_required');
      expect(e.message).toMatch(/Skool ended the session/);
      expect(sim.posts).toHaveLength(0);
    });
  });
});

describe('skool: tools', () => {
  it('groups lists the groups of the user, label the labels of a group (or "none" when it has none)', async () => {
    await withSkool(async (_sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      expect(await adapter.runTool!('groups', {}, c)).toEqual([
        { id: BUILDERS.id, name: 'Builders Club' },
        { id: VIP.id, name: 'VIP Lounge' },
        { id: PLAIN.id, name: 'Plain Group' },
      ]);
      expect(await adapter.runTool!('label', { id: BUILDERS.id }, c)).toEqual([
        { id: WINS.id, name: 'Wins' },
        { id: HELP.id, name: 'Help' },
        { id: ANNOUNCE.id, name: 'Announcements' },
      ]);
      expect(await adapter.runTool!('label', { id: PLAIN.id }, c)).toEqual([{ id: NO_LABEL, name: 'No label' }]);
      const e = await platformFailure(adapter.runTool!('label', { id: 'nope' }, c));
      expect(e).toMatchObject({ kind: 'rejected', message: 'Skool refused the request: group not found' });
    });
  });

  it('pages through more than 30 groups', async () => {
    await withSkool(async (sim, ctx) => {
      for (let i = 0; i < 40; i++) sim.addGroup({ id: `g${i}`, name: `g-${i}`, displayName: `G ${i}`, labels: [], postLevel: 1, members: { [MEMBER.id]: { level: 1 } } });
      const groups = (await adapter.runTool!('groups', {}, withCreds(ctx, await connect(ctx)))) as unknown[];
      expect(groups).toHaveLength(43);
      expect(sim.log.filter((l) => l.path.startsWith(`/users/${MEMBER.id}/groups`)).map((l) => l.path)).toEqual([
        `/users/${MEMBER.id}/groups?offset=0&limit=30`,
        `/users/${MEMBER.id}/groups?offset=30&limit=30`,
      ]);
    });
  });
});

describe('skool: publishing', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082', 'hex');
  const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(300, 7), Buffer.from([0xff, 0xd9])]);
  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
  const media = (id: string, mimeType: string, size: number): PublishMedia => ({ id, path: `https://tidings.example/media/2026/01/${id}`, type: 'image', mimeType, size });
  const open = async (m: PublishMedia) => new Blob([m.mimeType === 'image/png' ? png : jpeg], { type: m.mimeType });

  it('posts into the group with its label and title, the files uploaded first, and the URL uses the group slug', async () => {
    await withSkool(async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const r = await adapter.publish(
        { item: item('<p>Shipped <strong>v2</strong></p><p>Thanks all</p>', [media('a.png', 'image/png', png.length), media('b.jpg', 'image/jpeg', jpeg.length)]), settings: { __type: 'skool', ...SETTINGS, label: HELP.id }, idempotencyKey: 'k' },
        c,
      );
      const post = sim.posts[0]!;
      expect(r).toEqual({ status: 'published', id: post.id, url: `https://www.skool.com/builders-club/weekly-wins` });
      expect(post).toMatchObject({ type: 'generic', groupId: BUILDERS.id, title: 'Weekly wins', content: 'Shipped v2\nThanks all', labels: HELP.id, follow: true });
      expect(post.attachments.map((a) => [a.sha256, a.contentType])).toEqual([
        [sha(png), 'image/png'],
        [sha(jpeg), 'image/jpeg'],
      ]);
      const createFile = sim.log.find((l) => l.path === '/files')!;
      expect(createFile.body).toMatchObject({ file_name: 'a.png', content_type: 'image/png', content_length: png.length, owner_id: MEMBER.id });
      const put = sim.log.find((l) => l.method === 'PUT')!;
      expect(put.headers).toMatchObject({ 'content-type': 'image/png', 'x-amz-acl': 'public-read', 'content-length': String(png.length) });
      expect(put.headers.cookie).toBeUndefined();
    }, open);
  });

  it('thread items are comments: root_id the post, parent_id the previous item', async () => {
    await withSkool(async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const first = await adapter.publish({ item: item('<p>root</p>'), settings: SETTINGS, idempotencyKey: 'a' }, c);
      if (first.status !== 'published') throw new Error('published expected');
      const second = await adapter.publish({ item: item('<p>one</p>'), settings: SETTINGS, replyTo: { id: first.id, rootId: first.id }, idempotencyKey: 'b' }, c);
      if (second.status !== 'published') throw new Error('published expected');
      const third = await adapter.publish({ item: item('<p>two</p>'), settings: SETTINGS, replyTo: { id: second.id, rootId: first.id }, idempotencyKey: 'c' }, c);
      if (third.status !== 'published') throw new Error('published expected');
      expect(sim.posts.map((p) => [p.type, p.rootId, p.parentId, p.content])).toEqual([
        ['generic', undefined, undefined, 'root'],
        ['comment', first.id, first.id, 'one'],
        ['comment', first.id, second.id, 'two'],
      ]);
      expect(third.url).toBe(skoolPostUrl('builders-club', third.id));
    });
  });

  it('a group without labels is posted to without one', async () => {
    await withSkool(async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      await adapter.publish({ item: item('<p>hi</p>'), settings: { group: PLAIN.id, label: NO_LABEL, title: 'Hello' }, idempotencyKey: 'k' }, c);
      expect(sim.posts[0]).toMatchObject({ groupId: PLAIN.id, labels: undefined });
      expect((sim.log.find((l) => l.path === '/posts?follow=true')!.body as { metadata: object }).metadata).not.toHaveProperty('labels');
    });
  });

  it("Skool's own refusals are rejected with its words: level too low, admin-only label", async () => {
    await withSkool(async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      const level = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { group: VIP.id, label: NO_LABEL, title: 'T' }, idempotencyKey: 'k' }, c));
      expect(level).toMatchObject({ kind: 'rejected', message: 'Skool refused the post: must be admin or level 3 to post in this group' });
      const label = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { ...SETTINGS, label: ANNOUNCE.id }, idempotencyKey: 'k' }, c));
      expect(label).toMatchObject({ kind: 'rejected', message: 'Skool refused the post: cannot post to this label' });
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('refuses to post without the settings Skool needs, naming them', async () => {
    await withSkool(async (sim, ctx) => {
      const e = await platformFailure(adapter.publish({ item: item('<p>x</p>'), settings: { group: BUILDERS.id }, idempotencyKey: 'k' }, withCreds(ctx, await connect(ctx))));
      expect(e).toMatchObject({ kind: 'rejected', message: 'Skool needs a group, a label and a title: label, title' });
      expect(sim.log.some((l) => l.path.startsWith('/posts'))).toBe(false);
    });
  });

  it('a storage refusal of the bytes stops the post (no post with an empty attachment)', async () => {
    await withSkool(async (sim, ctx) => {
      const c = withCreds(ctx, await connect(ctx));
      // The signed storage URL refuses the bytes (S3's words): the post is not made without them.
      sim.inject({ path: /^\/f\//, status: 403, headers: { 'content-type': 'application/xml' }, body: '<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>' });
      const e = await platformFailure(adapter.publish({ item: item('<p>x</p>', [media('a.png', 'image/png', png.length)]), settings: SETTINGS, idempotencyKey: 'k' }, c));
      expect(e.message).toMatch(/storage refused the upload \(HTTP 403\)/);
      expect(e.kind).toBe('rejected');
      expect(sim.posts).toHaveLength(0);
    }, open);
  });
});

describe('skool: error classification (assumed shapes)', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body, headers });
  it('sorts the answers', () => {
    expect(skoolError(res(200, { id: 'x' }))).toBeUndefined();
    expect(skoolError(res(401, { error: 'unauthorized' }))?.kind).toBe('reconnect_required');
    expect(skoolError(res(403, 'must be admin or level 2'))).toMatchObject({ kind: 'rejected', message: 'Skool refused the post: must be admin or level 2' });
    expect(skoolError(res(200, { error: 'cannot post to this label' }))?.kind).toBe('rejected');
    expect(skoolError(res(429, {}, {}))).toMatchObject({ kind: 'rate_limited', details: { retryAfterSeconds: 60 } });
    expect(skoolError(res(429, {}, { 'retry-after': '12' }))?.details.retryAfterSeconds).toBe(12);
    expect(skoolError(res(503, 'down'))?.kind).toBe('transient');
    expect(skoolError(res(400, { error: 'title is required' }))).toMatchObject({ kind: 'rejected', message: 'Skool refused the request: title is required' });
  });
});
