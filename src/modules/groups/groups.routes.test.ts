import { describe, expect, it } from 'vitest';
import { call, expectError, expectIsolated, type TestOrg, useTestApp } from '../../../test/helpers.js';

describe('client groups', () => {
  const { t, orgs: { acme, beta } } = useTestApp({}, 'Acme', 'Beta');

  const create = (org: TestOrg, name: string) => call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name } });

  describe('happy', () => {
    it('creates, lists, renames and deletes; a deleted group releases its channels', async () => {
      const res = await create(acme, '  Client A ');
      expect(res.statusCode).toBe(201);
      const group = res.json<{ id: string; name: string }>();
      expect(group.name).toBe('Client A');
      await create(acme, 'Another');

      const list = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/groups' });
      expect(list.json()).toEqual([expect.objectContaining({ name: 'Another' }), { id: group.id, name: 'Client A' }]);

      const renamed = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/groups/${group.id}`, payload: { name: 'Client B' } });
      expect(renamed.json()).toEqual({ id: group.id, name: 'Client B' });

      await t.deps.repositories.integrations.insertIntegration({ organizationId: acme.id, identifier: 'x', internalId: 'g1', name: 'In group', customerId: group.id });
      const deleted = await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/groups/${group.id}` });
      expect(deleted.json()).toEqual({ id: group.id, name: 'Client B' });
      const names = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/groups' })).json<{ name: string }[]>().map((g) => g.name);
      expect(names).toEqual(['Another']);
      const channels = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<Record<string, unknown>[]>();
      expect(channels[0]!.name).toBe('In group');
      expect('customer' in channels[0]!).toBe(false);
    });
  });

  describe('errors', () => {
    it('400 names the field; 404 for unknown or deleted ids', async () => {
      const body = expectError(await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: ' ' } }), 400, 'VALIDATION_FAILED');
      expect(body.fields).toEqual([{ path: 'name', message: 'Required' }]);
      expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: '/public/v1/groups/00000000-0000-0000-0000-000000000000', payload: { name: 'x' } }), 404, 'NOT_FOUND');
      expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: '/public/v1/groups/not-an-id' }), 404, 'NOT_FOUND');
      const g = (await create(acme, 'Temp')).json<{ id: string }>();
      await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/groups/${g.id}` });
      expectError(await call(t.app, acme.apiKey, { method: 'DELETE', url: `/public/v1/groups/${g.id}` }), 404, 'NOT_FOUND');
    });
  });

  describe('security', () => {
    it("another organisation's group answers 404 on every id route", async () => {
      const g = (await create(acme, 'Private')).json<{ id: string }>();
      await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/groups/${g.id}`, payload: { name: 'Mine now' } }, acme, beta);
      await expectIsolated(t.app, { method: 'DELETE', url: `/public/v1/groups/${g.id}` }, acme, beta);
      expect((await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/groups' })).json()).toEqual([]);
    });
  });
});
