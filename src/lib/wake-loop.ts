/**
 * A worker's main loop: run a round, sleep until the round's answer (or `maxIdleMs`, a safety net),
 * and start the next round early when poked (NOTIFY, a freed slot, a test). A poke during a round
 * is not lost: the loop goes round again at once. A failed round is logged and tried again after
 * a second. `stop()` ends the sleep and waits for the round in progress.
 */
export interface WakeLoop {
  readonly running: boolean;
  start(): void;
  poke(): void;
  stop(): Promise<void>;
}

export function createWakeLoop(opts: {
  maxIdleMs: number;
  /** One round; returns how long to sleep at most before the next (undefined: `maxIdleMs`). */
  round: () => Promise<number | undefined>;
  onError: (err: unknown) => void;
}): WakeLoop {
  let running = false;
  let wake: (() => void) | undefined;
  let wakeRequested = false;
  let done: Promise<void> | undefined;

  function poke() {
    wakeRequested = true;
    wake?.();
  }

  async function loop() {
    while (running) {
      wakeRequested = false;
      let sleepMs = opts.maxIdleMs;
      try {
        const wanted = await opts.round();
        if (wanted !== undefined) sleepMs = Math.max(0, Math.min(sleepMs, wanted));
      } catch (err) {
        opts.onError(err);
        sleepMs = 1000;
      }
      if (wakeRequested || !running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(end, sleepMs);
        function end() {
          clearTimeout(timer);
          wake = undefined;
          resolve();
        }
        wake = end;
      });
    }
  }

  return {
    get running() {
      return running;
    },
    start() {
      if (running) return;
      running = true;
      done = loop();
    },
    poke,
    async stop() {
      if (!running) return;
      running = false;
      poke();
      await done;
    },
  };
}
