import { beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';

describe('GET /notifications', () => {
  const { t, orgs: { acme, beta } } = useTestApp({}, 'Acme', 'Beta');
  beforeAll(async () => {
    const repo = t.deps.repositories.notifications;
    const base = Date.UTC(2026, 10, 1);
    for (let i = 0; i < 150; i++) {
      await repo.insertNotification({ organizationId: acme.id, content: `n${i}`, link: i === 149 ? 'https://x.com/p/1' : null, createdAt: new Date(base + i * 60_000) });
    }
    await repo.insertNotification({ organizationId: beta.id, content: 'beta only' });
  });

  it('pages of 100, newest first, in the reference shape', async () => {
    const p0 = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<{
      notifications: { id: string; content: string; link: string | null; createdAt: string }[];
      total: number;
      page: number;
      limit: number;
      hasMore: boolean;
    }>();
    expect({ total: p0.total, page: p0.page, limit: p0.limit, hasMore: p0.hasMore, n: p0.notifications.length }).toEqual({ total: 150, page: 0, limit: 100, hasMore: true, n: 100 });
    expect(p0.notifications[0]).toEqual({ id: expect.any(String), content: 'n149', link: 'https://x.com/p/1', createdAt: new Date(Date.UTC(2026, 10, 1) + 149 * 60_000).toISOString() });
    expect(p0.notifications[99]!.content).toBe('n50');

    const p1 = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/notifications?page=1' })).json<{ notifications: { content: string }[]; hasMore: boolean; page: number }>();
    expect(p1.page).toBe(1);
    expect(p1.hasMore).toBe(false);
    expect(p1.notifications.map((n) => n.content)).toEqual(Array.from({ length: 50 }, (_, i) => `n${49 - i}`));
  });

  it("shows only the caller's organisation", async () => {
    const b = (await call(t.app, beta.apiKey, { method: 'GET', url: '/public/v1/notifications' })).json<{ notifications: { content: string }[]; total: number }>();
    expect(b.total).toBe(1);
    expect(b.notifications.map((n) => n.content)).toEqual(['beta only']);
  });

  it('rejects a bad page naming it', async () => {
    for (const page of ['-1', 'abc', '1.5']) {
      const body = expectError(await call(t.app, acme.apiKey, { method: 'GET', url: `/public/v1/notifications?page=${page}` }), 400, 'VALIDATION_FAILED');
      expect(body.fields![0]!.path).toBe('page');
    }
  });
});
