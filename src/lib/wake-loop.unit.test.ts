import { describe, expect, it } from 'vitest';
import { createWakeLoop } from './wake-loop.js';

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(cond()).toBe(true);
};

describe('the wake loop', () => {
  it('sleeps for what the round asks and wakes early when poked', async () => {
    let rounds = 0;
    const loop = createWakeLoop({ maxIdleMs: 60_000, onError: () => {}, round: async () => (rounds++, undefined) });
    loop.start();
    await until(() => rounds === 1);
    loop.poke();
    await until(() => rounds === 2);
    await loop.stop();
    expect(loop.running).toBe(false);
  });

  it('a poke during a round is not lost: the next round starts without sleeping', async () => {
    let rounds = 0;
    let release!: () => void;
    const loop = createWakeLoop({
      maxIdleMs: 60_000,
      onError: () => {},
      round: () => {
        rounds++;
        return rounds === 1 ? new Promise((r) => (release = () => r(undefined))) : Promise.resolve(undefined);
      },
    });
    loop.start();
    await until(() => rounds === 1);
    loop.poke();
    release();
    await until(() => rounds === 2);
    await loop.stop();
  });

  it('a failed round is reported and the loop goes on; stop waits for the round in progress', async () => {
    const errors: unknown[] = [];
    let rounds = 0;
    let finished = false;
    const loop = createWakeLoop({
      maxIdleMs: 60_000,
      onError: (e) => errors.push(e),
      round: async () => {
        rounds++;
        if (rounds === 1) throw new Error('boom');
        await new Promise((r) => setTimeout(r, 20));
        finished = true;
        return 0;
      },
    });
    loop.start();
    await until(() => errors.length === 1);
    loop.poke();
    await until(() => rounds >= 2);
    await loop.stop();
    expect(finished).toBe(true);
    expect((errors[0] as Error).message).toBe('boom');
  });
});
