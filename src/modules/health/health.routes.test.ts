import { describe, expect, it } from 'vitest';
import { manualClock, useTestApp } from '../../../test/helpers.js';

describe('health and readiness', () => {
  const clock = manualClock();
  const { t } = useTestApp({ clock, env: { READY_MAX_HEARTBEAT_AGE_SECONDS: '30' } });

  it('/healthz answers without a credential', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz: not ready until a publisher beats, ready while it beats, not ready when it stops', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(before.statusCode).toBe(503);
    expect(before.json()).toMatchObject({ ready: false, checks: { database: { ok: true }, publisher: { ok: false, lastBeatAt: null } } });

    await t.deps.startWorker();
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, checks: { publisher: { ok: true, lastBeatAt: new Date(clock.now()).toISOString() } } });

    t.deps.heartbeat.stop();
    clock.advance(31_000);
    const stale = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(stale.statusCode).toBe(503);
    expect(stale.json<{ checks: { publisher: { error: string } } }>().checks.publisher.error).toBe('last publisher heartbeat 31 s ago');
  });
});
