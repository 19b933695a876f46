/**
 * Benchmark of the bulk import (issue 30 part 4), run by hand (never in CI):
 *   npm run build && node --import tsx bench/import-bench.ts [embedded|postgres|both]
 *
 * Seeds an organisation with channels (bench/lib.ts), starts the built service
 * (`node dist/main.js serve`), then POSTs a CSV of 10,000 rows (5,000 groups, each on two channels)
 * to /public/v1/imports: once with dryRun=true (answered in the request), once for real (more than
 * 2,000 rows: a background import, polled on GET /imports/{id} until it completes). Prints the
 * timings as JSON. The goal: 10,000 rows in under 60 s on embedded (PGlite).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, dropDatabase, SECRET, seedOrganization, sleep, startService, stop } from './lib.js';

const PORT = 3927;
const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);

function csv(rows: number): string {
  const lines = ['group,channel,date,text'];
  const base = Date.UTC(2031, 0, 5, 9, 0, 0);
  for (let i = 0; i < rows; i++) {
    const g = Math.floor(i / 2);
    const date = new Date(base + g * 15 * 60_000).toISOString();
    lines.push(`g${g},${i % 2 === 0 ? 'Channel 1' : 'Channel 4'},${date},Post number ${g} of the bulk import benchmark`);
  }
  return lines.join('\n');
}

async function run(mode: 'embedded' | 'postgres') {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-import-bench-'));
  const dbName = `tidings_import_bench_${Date.now()}`;
  const env: Record<string, string> = {
    CREDENTIALS_SECRET: SECRET,
    DATA_DIR: dataDir,
    PORT: String(PORT),
    API_RATE_LIMIT: '1000000',
    ...(mode === 'postgres' ? { DATABASE_URL: await createDatabase(dbName) } : {}),
  };
  const apiKey = await seedOrganization(env);
  const { child } = await startService(env, PORT);
  try {
    const file = csv(ROWS);
    const url = `http://127.0.0.1:${PORT}/public/v1/imports`;
    const headers = { authorization: apiKey, 'content-type': 'text/csv' };
    let t0 = performance.now();
    const dry = await fetch(`${url}?dryRun=true`, { method: 'POST', headers, body: file });
    const dryBody = (await dry.json()) as { valid?: boolean; problems?: unknown[] };
    const dryRunMs = Math.round(performance.now() - t0);
    t0 = performance.now();
    const real = await fetch(url, { method: 'POST', headers, body: file });
    const job = (await real.json()) as { id: string; status: string };
    let status = job.status;
    let last: Record<string, unknown> = job;
    while (real.status === 202 && status !== 'completed' && status !== 'failed') {
      await sleep(250);
      last = (await (await fetch(`${url}/${job.id}`, { headers: { authorization: apiKey } })).json()) as Record<string, unknown>;
      status = last.status as string;
    }
    const importMs = Math.round(performance.now() - t0);
    console.log(
      JSON.stringify({
        mode,
        rows: ROWS,
        bytes: Buffer.byteLength(file),
        dryRun: { status: dry.status, valid: dryBody.valid, problems: dryBody.problems?.length, ms: dryRunMs },
        import: { status: real.status, final: status, created: last.created, ms: importMs },
      }),
    );
  } finally {
    await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    if (mode === 'postgres') await dropDatabase(dbName);
  }
}

const which = process.argv[2] ?? 'embedded';
for (const mode of which === 'both' ? (['embedded', 'postgres'] as const) : [which as 'embedded' | 'postgres']) await run(mode);
