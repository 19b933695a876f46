import type { Clock } from '../../lib/clock.js';
import type { HealthRepository } from './health.repository.js';

export interface Readiness {
  ready: boolean;
  checks: {
    database: { ok: boolean; error?: string };
    publisher: { ok: boolean; lastBeatAt: string | null; error?: string };
  };
}

export function createHealthService(deps: { health: HealthRepository; clock: Clock; maxHeartbeatAgeSeconds: number }) {
  return {
    /** Database reachable and a publisher (worker) beat within the allowed age. */
    async readiness(): Promise<Readiness> {
      const database: Readiness['checks']['database'] = { ok: true };
      const publisher: Readiness['checks']['publisher'] = { ok: false, lastBeatAt: null };
      try {
        await deps.health.ping();
        const beat = await deps.health.findLatestHeartbeat();
        if (beat) {
          publisher.lastBeatAt = beat.beatAt.toISOString();
          const age = (deps.clock.now() - beat.beatAt.getTime()) / 1000;
          publisher.ok = age <= deps.maxHeartbeatAgeSeconds;
          if (!publisher.ok) publisher.error = `last publisher heartbeat ${Math.round(age)} s ago`;
        } else {
          publisher.error = 'no publisher has started (run a process with --role worker or all)';
        }
      } catch {
        database.ok = false;
        database.error = 'database unreachable';
        publisher.error = 'unknown while the database is unreachable';
      }
      return { ready: database.ok && publisher.ok, checks: { database, publisher } };
    },
  };
}

export type HealthService = ReturnType<typeof createHealthService>;
