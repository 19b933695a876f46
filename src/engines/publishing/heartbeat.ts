import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../lib/clock.js';
import type { HeartbeatRepository } from './heartbeat.repository.js';

/**
 * Each worker process writes a beat every few seconds from inside the publisher's loop
 * (engines/publishing/dispatcher.ts), so a publisher that stopped ticking stops beating; `/readyz` treats
 * the publisher as alive when some worker beat recently.
 */
export function createHeartbeat(deps: { heartbeats: Pick<HeartbeatRepository, 'saveBeat' | 'deleteWorker'>; clock: Clock; role: string; intervalSeconds: number; onError: (err: unknown) => void }) {
  const workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  let timer: NodeJS.Timeout | undefined;

  async function beat() {
    const at = new Date(deps.clock.now());
    await deps.heartbeats.saveBeat(workerId, deps.role, at);
  }

  return {
    workerId,
    beat,
    async start() {
      await beat();
      timer = setInterval(() => beat().catch(deps.onError), deps.intervalSeconds * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    /** Removes this worker's row on a clean stop, so others take over its leases at once. */
    async forget() {
      await deps.heartbeats.deleteWorker(workerId);
    },
  };
}
