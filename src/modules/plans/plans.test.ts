import { z } from 'zod';
import { errorResponses } from '../../http/error-schema.js';
import { describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';

describe('plans', () => {
  // A route guarded like the channel-connect route of a later issue will be.
  const { t, orgs: { acme: org } } = useTestApp(
    {
      extraRoutes: async (app) => {
        const schema = { response: { 200: z.object({ ok: z.boolean() }), ...errorResponses('PLAN_LIMIT_REACHED') } };
        app.post('/test/guarded', { schema }, async (req) => {
          await t.deps.services.plans.assertWithinLimit(req.auth.organizationId, 'channels', 3);
          return { ok: true };
        });
      },
    },
    'Acme',
  );

  it('self-hosted default is unlimited', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/test/guarded' });
    expect(res.json()).toEqual({ ok: true });
  });

  it('a plan limit answers 403 naming the limit', async () => {
    await t.deps.services.organizations.setPlan(org.id, 'free');
    const body = expectError(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/test/guarded' }), 403, 'PLAN_LIMIT_REACHED');
    expect(body.message).toBe('Plan limit reached: channels — the "free" plan allows 3 channels and 3 are in use');
    await t.deps.services.organizations.setPlan(org.id, 'standard');
    expect((await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/test/guarded' })).statusCode).toBe(200);
  });

  it('unknown plans are refused naming the known ones', async () => {
    await expect(t.deps.services.organizations.setPlan(org.id, 'gold')).rejects.toThrow(/Unknown plan "gold" \(known: free, pro, standard, unlimited\)/);
  });
});
