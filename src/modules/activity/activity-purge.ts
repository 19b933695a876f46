import { runPeriodically } from '../../lib/periodic.js';
import type { ActivityService } from './activity.service.js';

/**
 * The activity log's retention, run by worker processes (`deps.startWorker`): entries older than
 * `ACTIVITY_RETENTION_DAYS` (at least 90) are deleted. Several workers may run it at once (a delete
 * of old rows is the same whoever runs it).
 */
export function startActivityPurge(
  activity: Pick<ActivityService, 'purge'>,
  opts: { firstDelayMs: number; intervalMs: number; logger: { error(obj: unknown, msg?: string): void } },
) {
  return runPeriodically(async () => activity.purge(), {
    firstDelayMs: opts.firstDelayMs,
    intervalMs: opts.intervalMs,
    onError: (err) => opts.logger.error({ err }, 'activity log purge failed'),
  });
}
