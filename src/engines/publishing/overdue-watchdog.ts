import { emitEvent, notifyIn, postEventPayload } from '../../core/events/events.js';
import type { Metrics } from '../../core/metrics/metrics.js';
import type { Clock } from '../../lib/clock.js';
import { runPeriodically } from '../../lib/periodic.js';
import type { OverdueRepository } from './overdue.repository.js';

export interface OverdueWatchdogOptions {
  /** a post still queued this long after its scheduled time is overdue (config PUBLISH_OVERDUE_SECONDS) */
  thresholdMs: number;
  /** posts reported per transaction */
  batchSize: number;
}

/**
 * The overdue-post watchdog (issue 29), run by worker processes: each round it finds posts still
 * queued more than `thresholdMs` after their scheduled time — the publisher is down, backed up, or
 * the post is retrying — and reports each once per scheduled time: a `post.overdue` outbox event
 * and a notification to its organisation, written in the transaction that marks the post reported
 * (`posts.overdue_reported_for`), so a report is neither lost nor repeated, whichever worker makes
 * it. It only reports: the publisher still publishes (or fails) the post, which sends its own event.
 * Time comes from `clock` (tests move it and call `runOnce`).
 */
export function createOverdueWatchdog(deps: {
  overdue: OverdueRepository;
  clock: Clock;
  metrics: Metrics;
  /** the platform as people read it ("Telegram"); the identifier when unknown */
  displayName: (identifier: string) => string;
  options: OverdueWatchdogOptions;
  logger: { warn(obj: unknown, msg?: string): void; error(obj: unknown, msg?: string): void };
}) {
  const { overdue, options } = deps;

  /** Reports what is overdue now; answers how many posts it reported. */
  async function runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const reported = await overdue.transaction(async (tx) => {
        const at = new Date(deps.clock.now());
        const rows = await overdue.claimOverdue(tx, new Date(at.getTime() - options.thresholdMs), options.batchSize);
        const channels = new Map((await overdue.findChannels(tx, rows.map((r) => r.integrationId))).map((c) => [c.id, c]));
        for (const row of rows) {
          const channel = channels.get(row.integrationId);
          const lateSeconds = Math.max(0, Math.round((at.getTime() - row.publishDate.getTime()) / 1000));
          const where = channel ? `${deps.displayName(channel.identifier)} (${channel.name})` : 'its channel';
          const why = row.error ? `; the last attempt said: ${row.error}` : row.attempts === 0 ? '; no publisher has taken it yet' : '';
          await notifyIn(
            tx,
            row.organizationId,
            `Your post on ${where} was due at ${row.publishDate.toISOString()} and is not published yet (${formatLate(lateSeconds)} late)${why}`,
            null,
            at,
          );
          await emitEvent(
            tx,
            row.organizationId,
            'post.overdue',
            {
              ...postEventPayload(row, channel),
              publishDate: row.publishDate.toISOString(),
              overdueSeconds: lateSeconds,
              attempts: row.attempts,
              error: row.error,
              detectedAt: at.toISOString(),
            },
            at,
          );
        }
        return rows.length;
      });
      total += reported;
      if (reported < options.batchSize) break;
    }
    if (total > 0) {
      deps.metrics.overdueReported(total);
      deps.logger.warn({ count: total, thresholdSeconds: Math.round(options.thresholdMs / 1000) }, 'posts overdue: reported (post.overdue)');
    }
    return total;
  }

  return {
    runOnce,
    /** Runs a round every `intervalMs` (the first after `firstDelayMs`) until stopped. */
    start(opts: { firstDelayMs: number; intervalMs: number }) {
      return runPeriodically(() => runOnce(), { ...opts, onError: (err) => deps.logger.error({ err }, 'overdue-post watchdog failed; trying again next round') });
    },
  };
}

export type OverdueWatchdog = ReturnType<typeof createOverdueWatchdog>;

function formatLate(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}
