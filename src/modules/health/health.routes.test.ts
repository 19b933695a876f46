import { describe, expect, it } from 'vitest';
import { buildTestApp, manualClock, useTestApp } from '../../../test/helpers.js';

interface ReadinessBody {
  ready: boolean;
  role: string;
  checks: {
    database: { ok: boolean };
    migrations: { ok: boolean; applied: number | null; expected: number };
    publisher: { ok: boolean; lastBeatAt: string | null; required: boolean; error?: string };
  };
}

describe('health and readiness (role all)', () => {
  const clock = manualClock();
  const { t } = useTestApp({ clock, env: { READY_MAX_HEARTBEAT_AGE_SECONDS: '30' } });

  it('/healthz answers without a credential', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/readyz: not ready until its publisher beats, ready while it beats, not ready when it stops', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(before.statusCode).toBe(503);
    const body = before.json<ReadinessBody>();
    expect(body).toMatchObject({ ready: false, role: 'all', checks: { database: { ok: true }, migrations: { ok: true }, publisher: { ok: false, lastBeatAt: null, required: true } } });
    expect(body.checks.migrations.applied).toBe(body.checks.migrations.expected);
    expect(body.checks.migrations.expected).toBeGreaterThan(10);

    await t.deps.startWorker();
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ ready: true, checks: { publisher: { ok: true, lastBeatAt: new Date(clock.now()).toISOString() } } });

    t.deps.heartbeat.stop();
    clock.advance(31_000);
    const stale = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(stale.statusCode).toBe(503);
    expect(stale.json<ReadinessBody>().checks.publisher.error).toBe('last publisher heartbeat 31 s ago');
  });
});

describe('/readyz per role', () => {
  it('an api process is ready with its database and migrations, whether or not any worker beats (reported, not required)', async () => {
    const t = await buildTestApp({ role: 'api', clock: manualClock() });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        ready: true,
        role: 'api',
        checks: { database: { ok: true }, migrations: { ok: true }, publisher: { ok: false, required: false, error: 'no publisher has started (run a process with --role worker or all)' } },
      });
    } finally {
      await t.close();
    }
  });

  it("a worker process is ready only once its own publisher started and beats; another process's beat does not make it ready", async () => {
    const clock = manualClock();
    const t = await buildTestApp({ role: 'worker', clock, env: { READY_MAX_HEARTBEAT_AGE_SECONDS: '30' } });
    try {
      // some other worker beat recently: this process still has not started its own publisher
      await t.deps.heartbeat.beat();
      const before = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(before.statusCode).toBe(503);
      expect(before.json()).toMatchObject({ ready: false, role: 'worker', checks: { database: { ok: true }, publisher: { ok: false, required: true, error: "this process's publisher has not started" } } });

      await t.deps.startWorker();
      const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.statusCode, ready.body).toBe(200);
      expect(ready.json()).toMatchObject({ ready: true, role: 'worker', checks: { publisher: { ok: true, required: true } } });
    } finally {
      await t.close();
    }
  });
});
