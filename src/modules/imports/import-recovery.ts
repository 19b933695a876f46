import { runPeriodically } from '../../lib/periodic.js';
import type { ImportsService } from './imports.service.js';

/**
 * The periodic task that takes over background imports whose process stopped (a restart, a crash,
 * a worker scaled away), run by worker processes (`deps.startWorker`). Soon after start, then every
 * `intervalMs`. Several workers may run it at once: each import is claimed by one of them.
 */
export function startImportRecovery(
  imports: Pick<ImportsService, 'resumeStale'>,
  opts: { firstDelayMs: number; intervalMs: number; logger: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void } },
) {
  return runPeriodically(
    async () => {
      await imports.resumeStale((err, importId) => opts.logger.warn({ err, importId }, 'imports: could not resume an import'));
    },
    { firstDelayMs: opts.firstDelayMs, intervalMs: opts.intervalMs, onError: (err) => opts.logger.error({ err }, 'import recovery failed') },
  );
}
