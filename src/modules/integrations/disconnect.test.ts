import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { integrations, posts } from '../../db/schema/index.js';
import { call, expectError, expectIsolated, useTestApp } from '../../../test/helpers.js';

describe('DELETE /integrations/{id}', () => {
  const { t, orgs: { acme, beta } } = useTestApp({}, 'Acme', 'Beta');

  async function channelWithPosts() {
    const ch = await t.deps.repositories.integrations.insertIntegration({
      organizationId: acme.id,
      identifier: 'telegram',
      internalId: `chat-${Math.random()}`,
      name: 'News',
      credentials: t.deps.secretBox.seal(JSON.stringify({ botToken: 'SECRET-BOT-TOKEN' })),
    });
    const [queued, published] = await t.deps.database.db
      .insert(posts)
      .values([
        { organizationId: acme.id, integrationId: ch.id, group: 'g1', publishDate: new Date(Date.now() + 3600_000), state: 'QUEUE' },
        { organizationId: acme.id, integrationId: ch.id, group: 'g2', publishDate: new Date(Date.now() - 3600_000), state: 'PUBLISHED', releaseId: '42' },
      ])
      .returning();
    return { ch, queued: queued!, published: published! };
  }

  it('erases the credentials, ends queued posts ERROR "channel disconnected", notifies, and answers without secrets', async () => {
    const { ch, queued, published } = await channelWithPosts();
    const res = await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/integrations/${ch.id}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: ch.id, name: 'News', identifier: 'telegram' });
    expect(res.body).not.toContain('SECRET');
    expect(res.body).not.toContain('credentials');

    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, ch.id));
    expect(row!.credentials).toBeNull();
    expect(row!.deletedAt).not.toBeNull();
    const states = await t.deps.database.db.select({ id: posts.id, state: posts.state, error: posts.error }).from(posts).where(eq(posts.integrationId, ch.id));
    expect(states.find((p) => p.id === queued.id)).toMatchObject({ state: 'ERROR', error: 'channel disconnected' });
    expect(states.find((p) => p.id === published.id)).toMatchObject({ state: 'PUBLISHED', error: null });

    const n = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string }[] }>();
    expect(n.notifications[0]!.content).toBe('Channel News (telegram) was disconnected; 1 queued post(s) will not be published');
    const list = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ id: string }[]>();
    expect(list.map((i) => i.id)).not.toContain(ch.id);
    expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/integrations/${ch.id}` }), 404, 'NOT_FOUND');
  });

  it('another organisation gets 404 and changes nothing', async () => {
    const { ch, queued } = await channelWithPosts();
    await expectIsolated(t.app, { method: 'DELETE', url: `/public/v1/integrations/${ch.id}` }, acme, beta, { ownerCheck: false });
    const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, ch.id));
    expect(row!.credentials).not.toBeNull();
    const [p] = await t.deps.database.db.select().from(posts).where(eq(posts.id, queued.id));
    expect(p!.state).toBe('QUEUE');
  });
});
