import { runPeriodically } from '../../lib/periodic.js';
import type { SeriesService } from './series.service.js';

/**
 * The periodic task that keeps every series' occurrences created a horizon ahead, run by worker
 * processes (`deps.startWorker`). It lives in this module, not in engines/: it only calls the
 * series service (which creates posts through the posts service), and an engine may not import
 * modules. Several workers may run it at once: each series is extended under its row's lock.
 */
export function startSeriesExtender(
  series: Pick<SeriesService, 'extendDue'>,
  opts: { firstDelayMs: number; intervalMs: number; logger: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void } },
) {
  return runPeriodically(
    async () => {
      await series.extendDue((err, seriesId) => opts.logger.warn({ err, seriesId }, 'series: could not create occurrences'));
    },
    { firstDelayMs: opts.firstDelayMs, intervalMs: opts.intervalMs, onError: (err) => opts.logger.error({ err }, 'series extender failed') },
  );
}
