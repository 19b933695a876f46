import { eq } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import { call } from '../../../test/helpers.js';
import { connectThroughApi, createPost, listChannels, picture, settle, sha, startMetaApiWorld, upload, type Listed, type MetaApiWorld } from '../common/meta-api.testkit.js';
import { IG_BAKERY } from './instagram-standalone.testkit.js';
import { REFRESH_MARGIN_MS } from './index.js';

/**
 * Instagram (Instagram Login) end to end through the HTTP API: connect, publish a picture the
 * simulator pulls from the app, the 60-day token renewed (`ig_refresh_token`) once the channel is
 * due — before a publish, or by the token keeper for an idle channel — and a token that can no
 * longer be renewed marking the channel `refreshNeeded` with a notification.
 */

const DAY = 86_400_000;
let w: MetaApiWorld;
let channel: Listed;

beforeAll(async () => {
  w = await startMetaApiWorld();
  channel = await connectThroughApi(w, 'instagram-standalone');
});

afterAll(async () => {
  await w?.close();
});

async function row() {
  const [r] = await w.t.deps.database.db.select().from(integrations).where(eq(integrations.id, channel.id));
  return { ...r!, credentials: JSON.parse(w.t.deps.secretBox.open(r!.credentials!)) as { accessToken: string; expiresAt: string } };
}

describe('instagram-standalone through the API', () => {
  it('connects, and publishes a picture pulled from the app’s public media URL', async () => {
    expect(channel).toMatchObject({ name: IG_BAKERY.name, profile: IG_BAKERY.username, refreshNeeded: false });
    const stored = await row();
    expect(stored.tokenExpiresAt!.getTime()).toBe(Date.parse(stored.credentials.expiresAt) - REFRESH_MARGIN_MS);
    const jpeg = await picture('jpeg');
    const media = await upload(w, jpeg, 'p.jpg');
    const { post } = await settle(w, await createPost(w, channel.id, [{ content: '<p>Standalone</p>', media: [media] }], { __type: 'instagram-standalone', post_type: 'post' }));
    expect([post.state, post.error]).toEqual(['PUBLISHED', null]);
    const m = w.sim.igMedia.find((x) => x.id === post.releaseId)!;
    expect(m).toMatchObject({ caption: 'Standalone', mediaSha256: [sha(jpeg)] });
    expect(post.releaseURL).toBe(`https://www.instagram.com/p/${m.shortcode}/`);
  });

  it('a PNG from the library is pulled as its JPEG rendition (Instagram publishes JPEG only)', async () => {
    const png = await picture('png', 400, 500);
    const media = await upload(w, png, 'poster.png');
    const { post } = await settle(w, await createPost(w, channel.id, [{ content: '<p>Poster</p>', media: [media] }], { __type: 'instagram-standalone', post_type: 'post' }));
    expect([post.state, post.error]).toEqual(['PUBLISHED', null]);
    const m = w.sim.igMedia.find((x) => x.id === post.releaseId)!;
    const container = w.sim.containers.get(m.containerId)!;
    expect([container.url, container.mimeType]).toEqual([`${media.path}.jpg`, 'image/jpeg']);
    const served = await w.t.app.inject({ method: 'GET', url: new URL(container.url!).pathname });
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(m.mediaSha256).toEqual([sha(served.rawPayload)]);
    const meta = await sharp(served.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 400, 500]);
  });

  it('renews the token once the channel is due, then publishes with the new one', async () => {
    const before = await row();
    w.clock.advance(51 * DAY);
    w.sim.advance(51 * DAY);
    const media = await upload(w, await picture('jpeg'), 'q.jpg');
    const { post } = await settle(w, await createPost(w, channel.id, [{ content: '<p>After renewal</p>', media: [media] }], { __type: 'instagram-standalone', post_type: 'post' }));
    expect([post.state, post.error]).toEqual(['PUBLISHED', null]);
    const after = await row();
    expect(after.credentials.accessToken).not.toBe(before.credentials.accessToken);
    expect(w.sim.log.filter((l) => l.path.startsWith('/refresh_access_token'))).toHaveLength(1);
    const publishCall = w.sim.log.filter((l) => l.path.endsWith('/media_publish')).at(-1)!;
    expect(publishCall.headers.authorization).toBe(`Bearer ${after.credentials.accessToken}`);
    expect(after.tokenExpiresAt!.getTime()).toBe(Date.parse(after.credentials.expiresAt) - REFRESH_MARGIN_MS);
  });

  it('an idle channel is renewed by the token keeper once its renewal comes due', async () => {
    const before = await row();
    expect(await w.t.deps.tokenKeeper.sweep(new Date(w.clock.now()))).toEqual({ renewed: 0, failed: 0 });
    w.clock.advance(51 * DAY);
    w.sim.advance(51 * DAY);
    expect(await w.t.deps.tokenKeeper.sweep(new Date(w.clock.now()))).toEqual({ renewed: 1, failed: 0 });
    const after = await row();
    expect(after.credentials.accessToken).not.toBe(before.credentials.accessToken);
    expect(w.sim.tokens.get(after.credentials.accessToken)).toMatchObject({ kind: 'ig', igUserId: IG_BAKERY.id, longLived: true });
    expect(after.tokenExpiresAt!.getTime()).toBeGreaterThan(w.clock.now() + 49 * DAY);
    expect(w.sim.log.filter((l) => l.path.startsWith('/refresh_access_token'))).toHaveLength(2);
  });

  it('a token that can no longer be renewed marks the channel refreshNeeded and notifies', async () => {
    w.sim.expireAccessTokens({ pastRefresh: true });
    const media = await upload(w, await picture('jpeg'), 'r.jpg');
    const { post } = await settle(w, await createPost(w, channel.id, [{ content: '<p>Too late</p>', media: [media] }], { __type: 'instagram-standalone', post_type: 'post' }));
    expect(post.state).toBe('ERROR');
    expect(post.error).toMatch(/^The channel must be reconnected: Instagram would not renew the token/);
    expect((await listChannels(w)).find((c) => c.id === channel.id)!.refreshNeeded).toBe(true);
    const notes = await call(w.t.app, w.org.apiKey, { method: 'GET', url: '/public/v1/notifications' });
    expect(JSON.stringify(notes.json())).toContain('must be reconnected');
  });
});
