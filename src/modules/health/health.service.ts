import type { Clock } from '../../lib/clock.js';
import type { HealthRepository } from './health.repository.js';

type Check = { ok: boolean; error?: string };

export interface Readiness {
  ready: boolean;
  role: 'api' | 'worker' | 'all';
  checks: {
    database: Check;
    migrations: Check & { applied: number | null; expected: number };
    /**
     * Worker and all roles: this process's publisher (its dispatcher beats from its loop, so a
     * loop that stopped ticking stops beating). API role: the latest beat of any worker, reported
     * for information (`required: false`): an API process serves requests without a worker.
     */
    publisher: Check & { lastBeatAt: string | null; required: boolean };
  };
}

/**
 * `/readyz`: "this process can do its job now". An `api` process: the database answers and has
 * every migration this build knows. A `worker`: the same, and its job engine and publisher loop
 * started and beat within `maxHeartbeatAgeSeconds`. `all`: both.
 */
export function createHealthService(deps: {
  health: HealthRepository;
  clock: Clock;
  maxHeartbeatAgeSeconds: number;
  role: 'api' | 'worker' | 'all';
  /** migrations in this build (src/db/migrations) */
  expectedMigrations: number;
  /** this process's publisher: when its loop last beat (epoch ms), undefined before it started */
  ownBeat: () => number | undefined;
}) {
  const worksJobs = deps.role !== 'api';

  function beatCheck(at: number | undefined, notStarted: string): Readiness['checks']['publisher'] {
    const check: Readiness['checks']['publisher'] = { ok: false, lastBeatAt: null, required: worksJobs };
    if (at === undefined) return { ...check, error: notStarted };
    check.lastBeatAt = new Date(at).toISOString();
    const age = (deps.clock.now() - at) / 1000;
    check.ok = age <= deps.maxHeartbeatAgeSeconds;
    if (!check.ok) check.error = `last publisher heartbeat ${Math.round(age)} s ago`;
    return check;
  }

  return {
    async readiness(): Promise<Readiness> {
      const database: Check = { ok: true };
      const migrations: Readiness['checks']['migrations'] = { ok: false, applied: null, expected: deps.expectedMigrations };
      let publisher: Readiness['checks']['publisher'];
      try {
        migrations.applied = await deps.health.countAppliedMigrations();
        // A newer build may have applied more; fewer means this database is behind this build.
        migrations.ok = migrations.applied >= deps.expectedMigrations;
        if (!migrations.ok) migrations.error = `${migrations.applied} of ${deps.expectedMigrations} migrations applied`;
        if (worksJobs) {
          publisher = beatCheck(deps.ownBeat(), "this process's publisher has not started");
        } else {
          const beat = await deps.health.findLatestHeartbeat();
          publisher = beatCheck(beat?.beatAt.getTime(), 'no publisher has started (run a process with --role worker or all)');
        }
      } catch {
        database.ok = false;
        database.error = 'database unreachable';
        migrations.error = 'unknown while the database is unreachable';
        publisher = { ok: false, lastBeatAt: null, required: worksJobs, error: 'unknown while the database is unreachable' };
      }
      const ready = database.ok && migrations.ok && (!worksJobs || publisher.ok);
      return { ready, role: deps.role, checks: { database, migrations, publisher } };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
