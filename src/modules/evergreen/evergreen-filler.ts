import { runPeriodically } from '../../lib/periodic.js';
import type { EvergreenService } from './evergreen.service.js';

/**
 * The periodic fill of every enabled evergreen queue, run by worker processes (`deps.startWorker`).
 * It lives in this module, not in engines/: it only calls the evergreen service (which creates posts
 * through the posts service), and an engine may not import modules. Several workers may run it at
 * once: a channel slot is taken by one fill only (a unique key on the fills).
 */
export function startEvergreenFill(
  evergreen: Pick<EvergreenService, 'fillAll'>,
  opts: { firstDelayMs: number; intervalMs: number; logger: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void } },
) {
  return runPeriodically(
    async (signal) => {
      await evergreen.fillAll(signal, (err, queueId) => opts.logger.warn({ err, queueId }, 'evergreen: could not fill a queue'));
    },
    { firstDelayMs: opts.firstDelayMs, intervalMs: opts.intervalMs, onError: (err) => opts.logger.error({ err }, 'evergreen fill failed') },
  );
}
