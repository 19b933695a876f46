import type { Clock } from '../../lib/clock.js';
import { runPeriodically } from '../../lib/periodic.js';
import { PLATFORM_IDENTIFIERS, type PlatformAdapter, type PlatformIdentifier } from '../../platforms/platform.js';
import type { ChannelAccess } from '../../core/channels/channel-access.js';
import type { ChannelsRepository } from '../../core/channels/channels.repository.js';

/**
 * Renews tokens that die if they are not renewed while still valid (`oauth.renewWhileValid`:
 * Threads, Instagram Login), for channels nobody publishes to: a token is otherwise renewed only
 * when it is about to be used. Runs in worker processes; a grant found gone marks the channel
 * `refreshNeeded` with a notification (channel access does that).
 */
export function createTokenKeeper(deps: {
  channels: Pick<ChannelsRepository, 'findTokensDueBefore'>;
  access: Pick<ChannelAccess, 'renew'>;
  adapters: Record<PlatformIdentifier, PlatformAdapter>;
  logger: { warn(obj: unknown, msg?: string): void };
  /** channels whose renewal comes due within this much of now are renewed in this sweep */
  aheadMs: number;
  /** most channels renewed per sweep (the rest come in the next) */
  batch?: number;
}) {
  const identifiers = PLATFORM_IDENTIFIERS.filter((id) => deps.adapters[id].refresh && deps.adapters[id].metadata.oauth?.renewWhileValid);

  /** One pass: renews every channel due; answers how many were renewed and how many failed. */
  async function sweep(now: Date, signal?: AbortSignal): Promise<{ renewed: number; failed: number }> {
    const due = await deps.channels.findTokensDueBefore(new Date(now.getTime() + deps.aheadMs), identifiers, deps.batch ?? 200);
    let renewed = 0;
    let failed = 0;
    for (const row of due) {
      if (signal?.aborted) break;
      try {
        await deps.access.renew(row);
        renewed++;
      } catch (err) {
        // A platform that is down is tried again next sweep; a dead grant is already marked.
        failed++;
        deps.logger.warn({ err, integrationId: row.id }, 'renewing a channel token failed');
      }
    }
    return { renewed, failed };
  }

  return {
    sweep,
    /** Sweeps after `firstDelayMs`, then every `intervalMs`, until stopped. */
    start(opts: { clock: Clock; firstDelayMs: number; intervalMs: number }) {
      return runPeriodically((signal) => sweep(new Date(opts.clock.now()), signal), {
        firstDelayMs: opts.firstDelayMs,
        intervalMs: opts.intervalMs,
        onError: (err) => deps.logger.warn({ err }, 'token keeper failed'),
      });
    },
  };
}

export type TokenKeeper = ReturnType<typeof createTokenKeeper>;
