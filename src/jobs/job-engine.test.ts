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
