import type { ApprovalsService } from './approvals.service.js';

type Logger = { error(obj: unknown, msg: string): void };

/**
 * Posts whose time came while they awaited approval are reported (`post.approval_expired`, a
 * notification to approvers and the writer), once per date: every `intervalMs`, the first after
 * `firstDelayMs`. Rows are taken with SKIP LOCKED, so workers may race.
 */
export function startApprovalExpirySweep(service: Pick<ApprovalsService, 'sweepExpired'>, opts: { firstDelayMs: number; intervalMs: number; logger?: Logger }) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const tick = () => {
    running = (async () => {
      try {
        while (!stopped && (await service.sweepExpired()) >= 200);
      } catch (err) {
        opts.logger?.error({ err }, 'The approval expiry sweep failed; it runs again later');
      }
    })();
    void running.finally(() => {
      if (!stopped) timer = setTimeout(tick, opts.intervalMs);
    });
  };
  timer = setTimeout(tick, opts.firstDelayMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
