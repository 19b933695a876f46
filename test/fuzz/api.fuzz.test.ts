import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { checkAnswer, describeExchange, type Violation } from './checks.js';
import type { Answer } from './client.js';
import { FUZZ_RUNS, FUZZ_SEED, heapAfterGc, MASTODON_INSTANCE, startFuzzEnvironment, summaryLine } from './environment.js';
import { createValidators, operationsOf, type OpenApiDocument } from './openapi.js';
import { isBadAuth, requestCaseArb, toSent, type RequestCase } from './requests.js';
import { createWorld } from './world.js';

/**
 * The fuzz tier, driven by the service's own OpenAPI document against the real HTTP server: for
 * every operation, generated requests (valid ones pointing at real objects, mutated bodies, hostile
 * parameters, broken framing, bad credentials), and the properties of `checks.ts` on every answer.
 * One test per operation, so a failure in one does not hide the others; each prints its
 * counterexample and fast-check's seed and path (replay with FUZZ_SEED and `-t "<operation>"`).
 */

const png = await readFile(join(import.meta.dirname, '..', 'fixtures', 'media', 'photo-48x64.png'));
const env = await startFuzzEnvironment({ png });
const { t, client, tally, guard } = env;

const docAnswer = await client.send({ method: 'GET', url: '/public/v1/openapi.json', headers: {} });
if (docAnswer.status !== 200) throw new Error(`GET /public/v1/openapi.json answered ${docAnswer.status}`);
const doc = JSON.parse(docAnswer.text) as OpenApiDocument;
// Paths in the document are relative to its server URL (…/public/v1).
const prefix = new URL(doc.servers?.[0]?.url ?? '/', 'http://x').pathname.replace(/\/$/, '');
const operations = operationsOf(doc);
const validators = createValidators(doc);
const world = await createWorld(t, client, { mastodonInstance: MASTODON_INSTANCE });
const keyNames = new Map([
  [world.orgs.A.apiKey, "<A's API key>"],
  [world.orgs.B.apiKey, "<B's API key>"],
]);
const bodyLimit = t.deps.config.jsonBodyLimitBytes;
const heapBefore = heapAfterGc();
/** every distinct failure seen (shrinking included), first message kept */
const found = new Map<string, string>();
let dirty = false;

afterAll(async () => {
  const lines = [...found.entries()].map(([key, message]) => `  - ${key}\n      ${message.split('\n').join('\n      ')}`);
  console.log(
    `${summaryLine('api', tally, `, ${operations.length} operations`)}${guard.refused().size > 0 ? `\n[fuzz] connections refused by the offline guard: ${[...guard.refused().entries()].map(([h, n]) => `${h} ×${n}`).join(', ')}` : ''}\n${found.size === 0 ? '[fuzz] no failures' : `[fuzz] ${found.size} distinct failures:\n${lines.join('\n')}`}`,
  );
  await env.close();
});

/** A failed property: the keys let the next round look for other failures instead of this one again. */
class PropertyViolation extends Error {
  constructor(
    message: string,
    readonly keys: string[],
  ) {
    super(message);
  }
}

/** Sends one generated request and checks its answer; violations whose key is in `known` were already reported. */
async function exchange(op: (typeof operations)[number], c: RequestCase, known: ReadonlySet<string>) {
  if (dirty) {
    await world.refresh();
    dirty = false;
  }
  const { sent, bodyNote } = toSent(op, c, world, prefix);
  const note = `${c.flavour}: ${c.note}; body ${bodyNote}`;
  const caseKind = c.mutation ? `${c.flavour} ${c.mutation.kind}` : c.flavour;
  const attemptsBefore = guard.platformAttempts();
  let answer: Answer;
  try {
    answer = await client.send(sent);
  } catch (err) {
    const key = `${op.name} → no answer [${caseKind}]`;
    const message = `${(err as Error).message}\n${describeExchange(sent, undefined, keyNames, note)}`;
    if (!found.has(key)) found.set(key, message);
    if (known.has(key)) return;
    throw new PropertyViolation(`${key}: ${message}`, [key]);
  }
  // FUZZ_TRACE=<file>: one line per request, to see where the time goes or what led to a state
  if (process.env.FUZZ_TRACE) appendFileSync(process.env.FUZZ_TRACE, `${answer.ms.toFixed(0)}ms ${answer.status} ${op.name} ${sent.body?.length ?? 0}B ${note.slice(0, 300)} ⇒ ${answer.text.slice(0, 300)}\n`);
  if (answer.status < 300 && op.method !== 'GET') dirty = true;
  const caller = c.auth === 'B' ? 'B' : 'A';
  const violations: Violation[] = checkAnswer(
    {
      op,
      validators,
      platformTried: guard.platformAttempts() > attemptsBefore,
      foreignIds: world.idsOf(caller === 'A' ? 'B' : 'A'),
      request: sent,
      caseKind,
      expectations: { overLimit: c.mutation?.overLimit, removedRequired: c.mutation?.removedRequired, badAuth: isBadAuth(c.auth) },
    },
    answer,
  );
  const exchangeText = describeExchange(sent, answer, keyNames, note);
  for (const v of violations) if (!found.has(v.key)) found.set(v.key, `${v.message}\n${exchangeText}`);
  const fresh = violations.filter((v) => !known.has(v.key));
  if (fresh.length === 0) return;
  throw new PropertyViolation(`${fresh.map((v) => `${v.key}: ${v.message}`).join('\n')}\n${exchangeText}`, fresh.map((v) => v.key));
}

/** Distinct failures reported per operation: after one, the next round looks for another. */
const MAX_ROUNDS = Number.parseInt(process.env.FUZZ_ROUNDS ?? '', 10) || 6;
/**
 * Runs allowed after a failure to shrink it. A failing case may be a 5 MiB body, and fast-check's
 * shrinker would try thousands of variants of it; past the budget the property passes unsent, so
 * the smallest failure found so far is the one reported.
 */
const SHRINK_BUDGET = 60;
/** …and at most this long (a failing case may be a hang, 20 s a try). */
const SHRINK_MS = 15_000;

describe('fuzz: the public API, from its own OpenAPI document', () => {
  it('reads the document: every path × method becomes an operation', () => {
    expect(operations.length).toBeGreaterThan(20);
    expect(prefix).toBe('/public/v1');
  });

  for (const op of operations) {
    // Generous: a round is FUZZ_RUNS requests of a few ms, and a hang costs 20 s.
    it(op.name, { timeout: Math.max(300_000, FUZZ_RUNS * MAX_ROUNDS * 100) }, async () => {
      const arb = requestCaseArb(op, { doc, world, bodyLimit, uploadUrls: env.uploadUrls });
      const known = new Set<string>();
      const reports: string[] = [];
      for (let round = 0; round < MAX_ROUNDS; round++) {
        let runsAfterFailure = -1;
        let failedAt = 0;
        const property = fc.asyncProperty(arb, async (c) => {
          if (runsAfterFailure >= 0 && (++runsAfterFailure > SHRINK_BUDGET || Date.now() - failedAt > SHRINK_MS)) return;
          try {
            await exchange(op, c, known);
          } catch (err) {
            if (runsAfterFailure < 0) {
              runsAfterFailure = 0;
              failedAt = Date.now();
            }
            throw err;
          }
        });
        const details = await fc.check(property, {
          seed: FUZZ_SEED + round,
          numRuns: FUZZ_RUNS,
          ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
        });
        if (!details.failed) break;
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        const replay = `replay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''} npx vitest run --project ${process.env.TEST_DB ?? 'pglite'} test/fuzz/api.fuzz.test.ts -t '${op.name}'`;
        reports.push(`${fc.defaultReportMessage(details) ?? 'failed'}\n${replay}\nGot:\n${error}`);
        const keys = details.errorInstance instanceof PropertyViolation ? details.errorInstance.keys : [];
        if (keys.length === 0) break;
        for (const k of keys) known.add(k);
      }
      if (reports.length > 0) throw new Error(`${reports.length} failure(s) of ${op.name}:\n\n${reports.join('\n\n')}`);
    });
  }

  it('still answers /healthz, with memory back near where it started', async () => {
    const health = await client.send({ method: 'GET', url: '/healthz', headers: {} });
    expect(health.status, health.text).toBe(200);
    const growth = heapAfterGc() - heapBefore;
    // Generous on purpose: after GC the heap keeps what the app caches by design (credential cache,
    // compiled validators, PGlite's and pg's buffers, undici's pool) plus V8's own slack, a few tens
    // of MB at most; a leak of per-request state over thousands of requests (several of them MBs
    // big) goes well past 64 MB.
    expect(growth, `heap grew by ${(growth / 1048576).toFixed(1)} MB`).toBeLessThan(64 * 1024 * 1024);
  });
});
