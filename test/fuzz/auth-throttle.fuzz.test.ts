import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, it } from 'vitest';
import { checkAnswer, describeExchange } from './checks.js';
import type { SentRequest } from './client.js';
import { FUZZ_SEED, startFuzzEnvironment, summaryLine } from './environment.js';
import { createValidators, operationsOf, type OpenApiDocument } from './openapi.js';

/**
 * The failed-auth throttle (API.md §3 429): after many failed attempts from an address, further
 * bad credentials from it get 429 in the error shape, and a VALID credential from it still passes
 * (HOUSE-STYLE "the credential check before any throttle that could lock a valid caller out").
 * Each run uses its own client address (X-Forwarded-For, with TRUST_PROXY on), so runs do not
 * share a throttle window.
 */

const LIMIT = 5;
const png = await readFile(join(import.meta.dirname, '..', 'fixtures', 'media', 'photo-48x64.png'));
const env = await startFuzzEnvironment({ png, env: { AUTH_FAILURE_LIMIT: String(LIMIT), AUTH_FAILURE_WINDOW_SECONDS: '900', TRUST_PROXY: 'true' } });
const org = await env.t.createOrg('Throttle');
const docAnswer = await env.client.send({ method: 'GET', url: '/public/v1/openapi.json', headers: {} });
const doc = JSON.parse(docAnswer.text) as OpenApiDocument;
const validators = createValidators(doc);
const listGroups = operationsOf(doc).find((o) => o.name === 'GET /groups')!;
const keyNames = new Map([[org.apiKey, '<a valid API key>']]);

afterAll(async () => {
  console.log(summaryLine('auth-throttle', env.tally));
  await env.close();
});

const badCredential = fc.constantFrom<(key: string) => string | undefined>(
  () => undefined,
  () => '',
  (k) => `Bearer ${k}`,
  (k) => `${k.slice(0, -3)}zzz`,
  () => 'tid_not_a_key',
  () => 'x'.repeat(300),
);

describe('fuzz: the failed-auth throttle', () => {
  it('after many failed attempts, bad credentials get 429 and a valid key still passes', { timeout: 120_000 }, async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(badCredential, { minLength: LIMIT, maxLength: LIMIT * 3 }), async (attempts) => {
        run++;
        const address = `198.51.100.${run % 250}`;
        const send = async (authorization: string | undefined) => {
          const sent: SentRequest = { method: 'GET', url: '/public/v1/groups', headers: { 'x-forwarded-for': address, ...(authorization === undefined ? {} : { authorization }) } };
          const answer = await env.client.send(sent);
          const violations = checkAnswer({ op: listGroups, validators, platformTried: false, foreignIds: [], request: sent, caseKind: 'auth', expectations: { badAuth: authorization !== org.apiKey } }, answer);
          if (violations.length > 0) throw new Error(`${violations.map((v) => v.message).join('\n')}\n${describeExchange(sent, answer, keyNames, 'throttle')}`);
          return { sent, answer };
        };
        const statuses: number[] = [];
        for (const make of attempts) statuses.push((await send(make(org.apiKey))).answer.status);
        const throttled = statuses.slice(LIMIT);
        if (throttled.some((s) => s !== 429)) throw new Error(`after ${LIMIT} failures from ${address}, bad credentials answered ${throttled.join(', ')} (429 expected): ${statuses.join(', ')}`);
        const valid = await send(org.apiKey);
        if (valid.answer.status !== 200) {
          throw new Error(`a valid key was refused after ${attempts.length} failed attempts from the same address:\n${describeExchange(valid.sent, valid.answer, keyNames, 'valid key')}`);
        }
      }),
      { seed: FUZZ_SEED, numRuns: 10 },
    );
  });
});
