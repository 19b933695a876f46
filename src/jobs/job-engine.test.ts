import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizations } from '../db/schema/index.js';
import { buildTestApp, type TestApp } from '../../test/helpers.js';

const QUEUE = 'test.transactional';

async function jobCount(t: TestApp, marker: string) {
  const { rows } = await t.deps.database.sql.executeSql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'marker' = $2`, [QUEUE, marker]);
  return Number(rows[0]!.n);
}

describe('job engine: enqueue in the transaction of the row', () => {
  let t: TestApp;
  const handled: string[] = [];

  beforeAll(async () => {
    t = await buildTestApp();
    const jobs = t.deps.jobs!;
    await jobs.ensureQueue(QUEUE);
    await jobs.boss.work<{ marker: string }>(QUEUE, { pollingIntervalSeconds: 0.5 }, async ([job]) => {
      handled.push(job!.data.marker);
    });
  });
  afterAll(async () => t.close());

  it('a job sent in a rolled-back transaction never exists and never runs; a committed one runs', async () => {
    const { db } = t.deps.database;
    await expect(
      db.transaction(async (tx) => {
        await tx.insert(organizations).values({ name: 'rolled back' });
        const id = await t.deps.jobs!.send(QUEUE, { marker: 'rollback' }, {}, tx);
        expect(id).toEqual(expect.any(String));
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');

    await db.transaction(async (tx) => {
      await tx.insert(organizations).values({ name: 'committed' });
      await t.deps.jobs!.send(QUEUE, { marker: 'commit' }, {}, tx);
    });

    expect(await db.select().from(organizations).where(eq(organizations.name, 'rolled back'))).toHaveLength(0);
    expect(await jobCount(t, 'rollback')).toBe(0);
    expect(await jobCount(t, 'commit')).toBe(1);

    const deadline = Date.now() + 15_000;
    while (!handled.includes('commit') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Several more polls after the committed job ran: the rolled-back one still never shows up.
    await new Promise((r) => setTimeout(r, 1500));
    expect(handled).toEqual(['commit']);
  });
});

describe('job engine: creating queues while other processes do', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(async () => t.close());

  it('a create that PostgreSQL aborts (deadlock with another process) is tried again and the queue exists', async () => {
    const boss = t.deps.jobs!.boss;
    const real = boss.createQueue.bind(boss);
    let calls = 0;
    boss.createQueue = async (name: string, options?: Parameters<typeof real>[1]) => {
      calls++;
      if (calls <= 2) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return real(name, options);
    };
    try {
      await t.deps.jobs!.ensureQueue('test.contended');
    } finally {
      boss.createQueue = real;
    }
    expect(calls).toBe(3);
    expect(await boss.getQueue('test.contended')).toMatchObject({ name: 'test.contended' });
  });

  it('a create that keeps failing still fails, with the database error', async () => {
    const boss = t.deps.jobs!.boss;
    const real = boss.createQueue.bind(boss);
    boss.createQueue = async () => {
      throw new Error('permission denied for schema pgboss');
    };
    try {
      await expect(t.deps.jobs!.ensureQueue('test.never')).rejects.toThrow('permission denied for schema pgboss');
    } finally {
      boss.createQueue = real;
    }
    expect(await boss.getQueue('test.never')).toBeNull();
  });
});
