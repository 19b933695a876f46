/**
 * Runs `task` after `firstDelayMs`, then every `intervalMs`, never two at once (a run still going
 * when the next is due is skipped), until `stop()`, which waits for the run in progress. The task
 * gets a signal that fires on stop. Timers are unref'd: they never keep a process alive.
 */
export function runPeriodically(
  task: (signal: AbortSignal) => Promise<unknown>,
  opts: { firstDelayMs: number; intervalMs: number; onError: (err: unknown) => void },
): { stop(): Promise<void> } {
  const stopping = new AbortController();
  let current: Promise<unknown> | undefined;
  const tick = () => {
    if (current || stopping.signal.aborted) return;
    current = task(stopping.signal)
      .catch(opts.onError)
      .finally(() => (current = undefined));
  };
  let interval: NodeJS.Timeout | undefined;
  const first = setTimeout(() => {
    tick();
    interval = setInterval(tick, opts.intervalMs);
    interval.unref();
  }, opts.firstDelayMs);
  first.unref();
  return {
    async stop() {
      stopping.abort();
      clearTimeout(first);
      clearInterval(interval);
      await current;
    },
  };
}
