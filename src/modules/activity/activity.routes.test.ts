import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { signUp, type Browser } from '../../../test/browser.js';
import { createChannel } from '../../../test/factories.js';
import { call, expectError, manualClock, useTestApp, type TestOrg } from '../../../test/helpers.js';
import { callOk, connectStreamable } from '../../../test/mcp/mcp-client.js';
import { runAsActor } from '../../core/actor.js';

interface Entry {
  id: string;
  at: string;
  actor: { kind: string; id: string | null; name: string };
  action: string;
  target: { kind: string; id: string | null; name: string | null };
  details: Record<string, unknown>;
}
interface Page {
  entries: Entry[];
  nextCursor: string | null;
}

const DAY = 24 * 3600_000;

describe('the activity log (GET /activity)', () => {
  const clock = manualClock();
  const { t } = useTestApp({ clock, env: { ALLOW_PRIVATE_TARGETS: 'true' } });
  let owner: Browser;
  let org: TestOrg;
  let apiKey: string;
  let keyId: string;
  let mcp: Client;
  const secrets: string[] = [];

  const list = async (query = '') => {
    const res = await owner.api('GET', `/public/v1/activity${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json<Page>();
  };

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'olga@example.test', name: 'Olga', organization: 'Acme' });
    const me = (await owner.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>();
    // With the session: an API key (its key is a secret)
    // a second between actions: the list is newest first (entries of one moment come in id order)
    const tick = () => clock.advance(1000);
    const made = await owner.api('POST', '/public/v1/api-keys', { name: 'Zap key' });
    expect(made.statusCode, made.body).toBe(201);
    ({ apiKey } = made.json<{ apiKey: string }>());
    keyId = made.json<{ key: { id: string } }>().key.id;
    secrets.push(apiKey);
    org = { id: me.organization.id, name: 'Acme', apiKey };
    tick();
    // With the API key: a webhook (its signing secret is a secret)
    const hook = await call(t.app, apiKey, { method: 'POST', url: '/public/v1/webhooks', payload: { name: 'Hook', url: 'http://127.0.0.1:1/hook' } });
    expect(hook.statusCode, hook.body).toBe(201);
    secrets.push(hook.json<{ secret: string }>().secret);
    tick();
    // With the session again: rotate its secret
    const rotated = await owner.api('POST', `/public/v1/webhooks/${hook.json<{ id: string }>().id}/rotate-secret`);
    expect(rotated.statusCode, rotated.body).toBe(200);
    secrets.push(rotated.json<{ secret: string }>().secret);
    tick();
    // Through MCP with the key: another webhook
    const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    mcp = await connectStreamable(`${origin}/mcp`, apiKey);
    const viaMcp = await callOk<{ secret: string }>(mcp, 'create_webhook', { name: 'Via MCP', url: 'http://127.0.0.1:1/mcp-hook' });
    secrets.push(viaMcp.secret);
    tick();
    // A post created with the key, then moved and deleted with the session
    const channel = await createChannel(t, org, 'telegram', { name: 'News chat' });
    const post = await call(t.app, apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: { type: 'draft', date: new Date(clock.now() + DAY).toISOString(), posts: [{ integration: { id: channel.id }, value: [{ content: '<p>Hello <b>world</b></p>' }] }] },
    });
    expect(post.statusCode, post.body).toBe(201);
    const postId = post.json<{ postId: string }[]>()[0]!.postId;
    tick();
    expect((await owner.api('PUT', `/public/v1/posts/${postId}/date`, { date: new Date(clock.now() + 2 * DAY).toISOString() })).statusCode).toBe(200);
    tick();
    expect((await owner.api('DELETE', `/public/v1/posts/${postId}`)).statusCode).toBe(200);
  });
  afterAll(async () => mcp?.close());

  it('records each action with who did it: the person (session), the key (API), the assistant (MCP)', async () => {
    const { entries } = await list('?limit=100');
    const seen = entries.map((e) => [e.action, e.actor.kind, e.actor.name, e.target.kind, e.target.name]).reverse();
    expect(seen).toEqual([
      ['api_key.created', 'user', 'Olga', 'api_key', 'Zap key'],
      ['webhook.created', 'api_key', 'Zap key', 'webhook', 'Hook'],
      ['webhook.secret_rotated', 'user', 'Olga', 'webhook', 'Hook'],
      ['webhook.created', 'mcp', 'Zap key', 'webhook', 'Via MCP'],
      ['post.created', 'api_key', 'Zap key', 'post', 'Hello world'],
      ['post.moved', 'user', 'Olga', 'post', 'Hello world'],
      ['post.deleted', 'user', 'Olga', 'post', 'Hello world'],
    ]);
    const created = entries.find((e) => e.action === 'post.created')!;
    expect(created.details).toMatchObject({ creationMethod: 'API', type: 'draft', channels: [expect.any(String)] });
    expect(entries.find((e) => e.actor.kind === 'api_key')!.actor.id).toBe(keyId);
  });

  it('filters by actor, action (exact or prefix), target and time; another organisation sees none of it', async () => {
    expect((await list('?actorKind=mcp')).entries.map((e) => e.target.name)).toEqual(['Via MCP']);
    expect((await list('?action=webhook.')).entries.map((e) => e.action)).toEqual(['webhook.created', 'webhook.secret_rotated', 'webhook.created']);
    expect((await list('?action=post.moved')).entries).toHaveLength(1);
    const post = (await list('?targetKind=post')).entries;
    expect(new Set(post.map((e) => e.target.id)).size).toBe(1);
    expect((await list(`?targetKind=post&targetId=${post[0]!.target.id}&actorKind=user`)).entries.map((e) => e.action)).toEqual(['post.deleted', 'post.moved']);
    expect((await list(`?to=${new Date(clock.now() - 6000).toISOString()}`)).entries).toEqual([]);
    expect((await list(`?to=${new Date(clock.now()).toISOString()}`)).entries).toHaveLength(6);
    expect((await list(`?from=${new Date(clock.now() - 6000).toISOString()}`)).entries).toHaveLength(7);
    expect((await list(`?from=${new Date(clock.now() - 5999).toISOString()}`)).entries).toHaveLength(6);
    const other = await t.createOrg('Other');
    // only its own first key, made by the system (as the admin CLI makes it)
    const others = (await call(t.app, other.apiKey, { method: 'GET', url: '/public/v1/activity' })).json<Page>().entries;
    expect(others.map((e) => [e.action, e.actor.kind, e.target.name])).toEqual([['api_key.created', 'system', 'default']]);
  });

  it('pages newest first with nextCursor; bad input is a 400 naming the field', async () => {
    const all = (await list()).entries.map((e) => e.id);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.entries.length).toBeLessThanOrEqual(3);
      paged.push(...page.entries.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(all);
    const field = async (query: string) => expectError(await owner.api('GET', `/public/v1/activity${query}`), 400, 'VALIDATION_FAILED').fields?.map((f) => f.path);
    expect(await field('?cursor=nonsense')).toEqual(['cursor']);
    expect(await field('?limit=101')).toEqual(['limit']);
    expect(await field('?actorKind=robot')).toEqual(['actorKind']);
    expect(await field('?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z')).toEqual(['to']);
  });

  it('never holds a secret: neither the API key nor any whsec_ signing secret appears anywhere', async () => {
    const body = (await owner.api('GET', '/public/v1/activity?limit=100')).body;
    expect(secrets).toHaveLength(4);
    for (const secret of secrets) expect(body).not.toContain(secret);
    expect(body).not.toContain('whsec_');
    expect(body).not.toContain('tdk_');
  });

  it('keeps entries 90 days: the purge removes only older ones', async () => {
    // with the key: the session ends long before 90 days
    const listed = async () => (await call(t.app, apiKey, { method: 'GET', url: '/public/v1/activity?limit=100' })).json<Page>().entries;
    const before = (await listed()).length;
    const newest = clock.now();
    clock.advance(60 * DAY);
    await runAsActor({ kind: 'system', id: null, name: 'System' }, () =>
      t.deps.services.activity.record({ organizationId: org.id, action: 'channel.disabled', targetKind: 'channel', targetId: null, targetName: 'Later' }),
    );
    // the first entries are 6 s older than the newest: 90 days after the newest, all are gone but the one of day 60
    clock.set(newest - 6000 + 90 * DAY);
    expect(await t.deps.services.activity.purge()).toBe(0);
    expect(await listed()).toHaveLength(before + 1);
    clock.set(newest + 90 * DAY + 1);
    // (and the other organisation's entry of the same moment)
    expect(await t.deps.services.activity.purge()).toBe(before + 1);
    expect((await listed()).map((e) => [e.action, e.actor.kind])).toEqual([['channel.disabled', 'system']]);
  });
});
