import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openPglite, openPostgres, type Database } from '../src/db/client.js';
import { createJobEngine } from '../src/jobs/job-engine.js';
import { urlForDatabase, withAdminClient } from './test-db.js';

declare module 'vitest' {
  export interface ProvidedContext {
    testDb: { snapshotPath?: string; templateDb?: string };
  }
}

/** Migrations and pg-boss's schema, applied once so each test file starts from a copy. */
async function prepare(database: Database) {
  await database.migrate();
  const jobs = createJobEngine(database, { role: 'all', logger: { error: () => undefined, warn: () => undefined } });
  await jobs.start();
  await jobs.stop();
}

export default async function setup(project: TestProject) {
  // The project's `env` reaches the test workers only; here the project name tells the kind.
  if (!project.name.startsWith('postgres')) {
    const dir = await mkdtemp(join(tmpdir(), 'tidings-test-'));
    const database = await openPglite({});
    await prepare(database);
    const dump = await database.dumpDataDir!();
    await database.close();
    const snapshotPath = join(dir, 'snapshot.tar.gz');
    await writeFile(snapshotPath, Buffer.from(await dump.arrayBuffer()));
    project.provide('testDb', { snapshotPath });
    return async () => rm(dir, { recursive: true, force: true });
  }
  const templateDb = `tidings_tpl_${randomBytes(4).toString('hex')}`;
  await withAdminClient(async (c) => {
    await c.query(`CREATE DATABASE ${templateDb}`);
  });
  const database = await openPostgres({ url: urlForDatabase(templateDb), poolSize: 2 });
  await prepare(database);
  await database.close();
  project.provide('testDb', { templateDb });
  return async () => {
    await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${templateDb} WITH (FORCE)`));
  };
}
