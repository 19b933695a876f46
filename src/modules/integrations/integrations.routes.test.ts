import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';

describe('GET /integrations and /is-connected', () => {
  let groupId: string;

  const { t, orgs: { acme, beta } } = useTestApp({}, 'Acme', 'Beta');
  beforeAll(async () => {
    const repo = t.deps.repositories.integrations;
    const sealed = t.deps.secretBox.seal(JSON.stringify({ accessToken: 'SECRET-ACCESS-TOKEN' }));
    groupId = (await t.deps.repositories.groups.insertGroup(acme.id, 'Client A')).id;
    await repo.insertIntegration({ organizationId: acme.id, identifier: 'x', internalId: '1', name: 'Acme on X', profile: 'acme', picture: 'https://img/x.png', credentials: sealed, customerId: groupId });
    await repo.insertIntegration({ organizationId: acme.id, identifier: 'bluesky', internalId: '2', name: 'Acme Bsky', profile: 'acme.bsky.social', credentials: sealed, disabled: true });
    await repo.insertIntegration({ organizationId: acme.id, identifier: 'mastodon', internalId: '3', name: 'Gone', credentials: sealed, deletedAt: new Date() });
    await repo.insertIntegration({ organizationId: beta.id, identifier: 'linkedin', internalId: '4', name: 'Beta In', credentials: sealed, refreshNeeded: true });
  });

  describe('happy', () => {
    it('lists live channels, disabled included, in the reference shape', async () => {
      const res = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' });
      expect(res.statusCode).toBe(200);
      const list = res.json<Record<string, unknown>[]>();
      expect(list.map((i) => i.name)).toEqual(['Acme on X', 'Acme Bsky']);
      expect(list[0]).toMatchObject({
        identifier: 'x',
        name: 'Acme on X',
        picture: 'https://img/x.png',
        disabled: false,
        profile: 'acme',
        customer: { id: groupId, name: 'Client A' },
        refreshNeeded: false,
        postingTimes: [{ time: 120 }, { time: 400 }, { time: 700 }],
        settings: {},
      });
      expect(list[0]!.id).toEqual(expect.any(String));
      // `customer` is omitted entirely when the channel has none.
      expect('customer' in list[1]!).toBe(false);
      expect(list[1]!.disabled).toBe(true);
    });

    it('filters by client group with `customer` or its alias `group`', async () => {
      for (const param of ['customer', 'group']) {
        const res = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/integrations?${param}=${groupId}` });
        expect(res.json<{ name: string }[]>().map((i) => i.name)).toEqual(['Acme on X']);
      }
      const none = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations?customer=not-a-group' });
      expect(none.json()).toEqual([]);
    });

    it('is-connected: true only with an enabled channel that needs no reconnect', async () => {
      expect((await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/is-connected' })).json()).toEqual({ connected: true });
      expect((await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/is-connected' })).json()).toEqual({ connected: false });
      const empty = await t.createOrg('Empty');
      expect((await call(t.app, empty.apiKey, { method: 'GET', url: '/public/v1/is-connected' })).json()).toEqual({ connected: false });
    });
  });

  describe('security', () => {
    it('never returns credentials', async () => {
      const res = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' });
      expect(res.body).not.toContain('SECRET-ACCESS-TOKEN');
      expect(res.body).not.toContain('credentials');
      expect(res.body).not.toContain('v1.');
    });

    it("shows no other organisation's channels, even filtered by its group", async () => {
      const res = await call(t.app, beta.apiKey, { method: 'GET', url: `/public/v1/integrations?customer=${groupId}` });
      expect(res.json()).toEqual([]);
      const all = await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/integrations' });
      expect(all.json<{ name: string }[]>().map((i) => i.name)).toEqual(['Beta In']);
    });
  });

  describe('errors', () => {
    it('rejects an empty filter naming the field', async () => {
      const body = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations?customer=' }), 400, 'VALIDATION_FAILED');
      expect(body.fields![0]!.path).toBe('customer');
    });
  });
});
