import { beforeAll, describe, expect, it } from 'vitest';
import { posts } from '../../db/schema/index.js';
import { call, expectError, expectIsolated, manualClock, useTestApp } from '../../../test/helpers.js';

describe('channel routes by id: PUT /integrations, integration-settings, find-slot', () => {
  let pinterestId: string;
  let blueskyId: string;
  const clock = manualClock(); // 2026-11-21T12:00:00Z

  const { t, orgs: { acme, beta } } = useTestApp({ clock }, 'Acme', 'Beta');
  beforeAll(async () => {
    const repo = t.deps.repositories.integrations;
    pinterestId = (await repo.insertIntegration({ organizationId: acme.id, identifier: 'pinterest', internalId: 'p1', name: 'Pins' })).id;
    blueskyId = (await repo.insertIntegration({ organizationId: acme.id, identifier: 'bluesky', internalId: 'b1', name: 'Sky', postingTimes: [] })).id;
  });

  describe('PUT /integrations/{id}', () => {
    it('renames, disables, groups and sets posting times', async () => {
      const group = (await call(t.app, acme.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'Client' } })).json<{ id: string }>();
      const res = await call(t.app, acme.apiKey, {
        method: 'PUT',
        url: `/public/v1/integrations/${pinterestId}`,
        payload: { name: 'Pins!', disabled: true, customer: group.id, postingTimes: [{ time: 600 }, { time: 60 }] },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ id: pinterestId, name: 'Pins!', disabled: true, customer: { id: group.id, name: 'Client' }, postingTimes: [{ time: 600 }, { time: 60 }] });
      const ungrouped = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${pinterestId}`, payload: { customer: null, disabled: false } });
      expect('customer' in ungrouped.json<Record<string, unknown>>()).toBe(false);
    });

    it('names bad fields; an unknown or foreign group is refused', async () => {
      const bad = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${pinterestId}`, payload: { postingTimes: [{ time: 1440 }], name: '' } }), 400, 'VALIDATION_FAILED');
      expect(bad.fields!.map((f) => f.path).sort()).toEqual(['name', 'postingTimes.0.time']);
      const foreignGroup = (await call(t.app, beta.apiKey, { method: 'POST', url: '/public/v1/groups', payload: { name: 'B' } })).json<{ id: string }>();
      const g = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${pinterestId}`, payload: { customer: foreignGroup.id } }), 400, 'VALIDATION_FAILED');
      expect(g.fields).toEqual([{ path: 'customer', message: 'No such client group' }]);
    });
  });

  describe('integration-settings', () => {
    it('describes the platform in the reference shape, with saved defaults', async () => {
      const res = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/integration-settings/${pinterestId}` });
      const out = res.json<{ output: { rules: string; maxLength: number; settings: { properties: Record<string, unknown>; required: string[] }; tools: { methodName: string; dataSchema: unknown[] }[]; defaults: unknown } }>().output;
      expect(out.maxLength).toBe(500);
      expect(out.settings.required).toContain('board');
      expect(Object.keys(out.settings.properties)).toEqual(expect.arrayContaining(['board', 'title', 'link']));
      expect(out.tools.map((x) => x.methodName)).toContain('boards');
      expect(out.defaults).toEqual({});
      const sky = (await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/integration-settings/${blueskyId}` })).json<{ output: { settings: unknown; maxLength: number } }>();
      expect(sky.output).toMatchObject({ settings: 'No additional settings required', maxLength: 300 });
      // extensions the web app's composer counts and checks with
      expect(sky.output).toMatchObject({ counting: 'graphemes', editor: 'normal', thread: { supported: true, kind: 'reply' }, media: { maxItems: 4, image: { maxCount: 4 } } });
      expect(out).toMatchObject({ counting: 'characters', media: { minItems: 1 } });
    });

    it('saves defaults validated against the platform, naming fields under settings.', async () => {
      const bad = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integration-settings/${pinterestId}`, payload: { settings: { title: 'x' } } }), 400, 'VALIDATION_FAILED');
      expect(bad.fields!.map((f) => f.path)).toEqual(['settings.board']);
      const ok = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integration-settings/${pinterestId}`, payload: { settings: { board: '123', title: 'Hello' } } });
      expect(ok.json<{ output: { defaults: unknown } }>().output.defaults).toMatchObject({ board: '123', title: 'Hello' });
      const list = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ id: string; settings: unknown }[]>();
      expect(list.find((i) => i.id === pinterestId)!.settings).toMatchObject({ board: '123' });
    });
  });

  describe('find-slot', () => {
    it('gives the earliest future slot not taken by a post of the organisation', async () => {
      // Posting times 60 and 600 minutes (set above); now is 12:00 → tomorrow 01:00 is next.
      const first = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/find-slot/${pinterestId}` });
      expect(first.json()).toEqual({ date: '2026-11-22T01:00:00.000Z' });
      await t.deps.database.db.insert(posts).values({ organizationId: acme.id, integrationId: blueskyId, group: 'g', publishDate: new Date('2026-11-22T01:00:00Z') });
      const next = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/find-slot/${pinterestId}` });
      expect(next.json()).toEqual({ date: '2026-11-22T10:00:00.000Z' });
    });

    it('uses the default slots for a channel without posting times', async () => {
      const res = await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/find-slot/${blueskyId}` });
      // Defaults 02:00, 06:40, 11:40: all past at 12:00 today; 02:00 tomorrow is free.
      expect(res.json()).toEqual({ date: '2026-11-22T02:00:00.000Z' });
    });
  });

  describe('security', () => {
    it('another organisation gets 404 on every id route; unknown ids 404', async () => {
      await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/integrations/${pinterestId}`, payload: { name: 'Pins' } }, acme, beta);
      await expectIsolated(t.app, { method: 'GET', url: `/public/v1/integration-settings/${pinterestId}` }, acme, beta);
      await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/integration-settings/${pinterestId}`, payload: { settings: { board: '1' } } }, acme, beta);
      await expectIsolated(t.app, { method: 'GET', url: `/public/v1/find-slot/${pinterestId}` }, acme, beta);
      for (const url of ['/public/v1/find-slot/nope', '/public/v1/integration-settings/00000000-0000-0000-0000-000000000000']) {
        expectError(await call(t.app, acme.apiKey, { method: 'GET', url }), 404, 'NOT_FOUND');
      }
    });
  });
});
