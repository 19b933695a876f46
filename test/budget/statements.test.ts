import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { emitEvent } from '../../src/core/events/events.js';
import { startReceiver, newWebhookSecret, type Receiver } from '../../src/core/webhooks/receiver.testkit.js';
import type { StatementRecording } from '../../src/db/client.js';
import { webhooks } from '../../src/db/schema/index.js';
import { createDeps, type AppDeps } from '../../src/deps.js';
import { createDispatcher, type Dispatcher } from '../../src/engines/publishing/dispatcher.js';
import { createHeartbeatRepository } from '../../src/engines/publishing/heartbeat.repository.js';
import { PUBLISH_QUEUE } from '../../src/engines/publishing/publish-queue.js';
import { createPublishingRepository } from '../../src/engines/publishing/publishing.repository.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { startTelegramSimulator, type TelegramSimulator } from '../../src/platforms/telegram/telegram.simulator.js';
import { createChannel, realtimeManualClock, waitFor } from '../factories.js';
import { call, TEST_SECRET, type TestApp, type TestOrg } from '../helpers.js';
import { openTestDatabase, testDbKind, type TestDbKind } from '../test-db.js';

/**
 * Statement budgets (issue 29): how many statements (round trips to the database, BEGIN and COMMIT
 * included), transactions (BEGIN … COMMIT blocks) and commits (as PostgreSQL's xact_commit counts
 * them, which publish-bench reports per post: each block, and each statement outside a block,
 * reads too) each operation costs, counted by `Database.recordStatements()` on the
 * driver itself — drizzle's, pg-boss's and the rate limiter's statements alike — after a warm-up
 * (caches full, queues known). Each budget is exactly today's count: an added round trip fails
 * here with the number and the list of statements; a removed one fails too, and the budget is
 * then lowered with it (a budget never hides an improvement).
 *
 * The apps here run as `--role api` (no pg-boss supervision timers) and the publish is driven by
 * a dispatcher built like `startWorker` builds it, without its idle timer, heartbeat or recovery
 * in the window, so nothing else in the process sends statements while one is counted.
 *
 * The drivers differ in one place: on PGlite the API rate limiter counts in memory (one process),
 * on PostgreSQL it is `tidings_rate_take` in the database (one statement per API request).
 */

const kind: TestDbKind = testDbKind();

interface Budget {
  statements: number;
  /** BEGIN … COMMIT blocks */
  transactions: number;
  /** transactions committed as PostgreSQL counts them (xact_commit): blocks, and each statement outside one */
  commits: number;
}
type PerDriver = Record<TestDbKind, Budget>;

/** A statement on one line: its start (what it is) and its end (its WHERE), the column lists cut out. */
function shorten(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= 400 ? line : `${line.slice(0, 200)} … ${line.slice(-200)}`;
}

/** Fails with the count and every statement, numbered, when the recording is not `budget`. */
function expectWithin(name: string, rec: StatementRecording, budget: PerDriver) {
  const listed = rec.statements.map((s, i) => `  ${i + 1}. ${shorten(s)}`).join('\n');
  expect(
    { statements: rec.statements.length, transactions: rec.transactions, commits: rec.commits },
    `${name} on ${kind}: ${rec.statements.length} statements, ${rec.transactions} transactions, ${rec.commits} commits (budget ${budget[kind].statements} / ${budget[kind].transactions} / ${budget[kind].commits}):\n${listed}\n`,
  ).toEqual(budget[kind]);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until every statement sent has its answer and nothing more was sent for `quietMs` (work
 * an operation leaves behind counts with it). Between an answer and the statement it leads to
 * there is no timer, so a loop's next statement cannot hide in the quiet time, however slow the
 * database is.
 */
async function settle(rec: StatementRecording, quietMs = 150) {
  for (;;) {
    const n = rec.statements.length;
    await sleep(quietMs);
    if (rec.statements.length === n && rec.inFlight === 0) return;
  }
}

/** Records `fn` and everything it leaves running, then stops. */
async function measure(t: { deps: AppDeps }, fn: () => Promise<unknown>): Promise<StatementRecording> {
  const rec = t.deps.database.recordStatements();
  try {
    await fn();
    await settle(rec);
  } finally {
    rec.stop();
  }
  return rec;
}

interface BudgetApp extends Pick<TestApp, 'app' | 'deps' | 'createOrg'> {
  clock: ManualClock;
  close(): Promise<void>;
}

/** Like `buildTestApp`, but as `--role api`: pg-boss runs without its maintenance timers. */
async function buildBudgetApp(env: Record<string, string> = {}): Promise<BudgetApp> {
  const testDb = await openTestDatabase(inject('testDb'));
  const clock = realtimeManualClock();
  const config = loadConfig({ CREDENTIALS_SECRET: TEST_SECRET, API_RATE_LIMIT: '100000', DATA_DIR: '/nonexistent-test-data-dir', ...env });
  const deps = await createDeps(config, { database: testDb.database, clock, role: 'api' });
  const app = await buildApp(deps, { webApp: false });
  await app.ready();
  return {
    app,
    deps,
    clock,
    async close() {
      await app.close();
      await deps.close();
      await testDb.drop();
    },
    async createOrg(name = 'Org') {
      const r = await deps.services.organizations.createOrganization(name);
      return { id: r.organization.id, name: r.organization.name, apiKey: r.apiKey };
    },
  };
}

function ok(res: LightMyRequestResponse, status = 200) {
  expect(res.statusCode, res.body).toBe(status);
  return res;
}

const TOKEN = '123456:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQ';
const BOT = { id: 123456, username: 'tidings_bot' };
const CHAT = { id: -1001234567890, title: 'Acme News', username: 'acmenews', admins: [BOT.id] };

describe('the statement recording', () => {
  let t: BudgetApp;
  beforeAll(async () => {
    t = await buildBudgetApp();
  });
  afterAll(async () => t?.close());

  it('records each statement once, BEGIN to COMMIT or ROLLBACK included, raw SQL inside a transaction too, and nothing after stop', async () => {
    const { database } = t.deps;
    await database.sql.executeSql('SELECT 0');
    const rec = database.recordStatements();
    await database.sql.executeSql('SELECT 1');
    await database.db.transaction(async (tx) => {
      await database.sqlIn(tx).executeSql('SELECT 2');
      await tx.execute(sql`select 3`);
    });
    await expect(
      database.db.transaction(async (tx) => {
        await tx.execute(sql`select 4`);
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    rec.stop();
    await database.sql.executeSql('SELECT 5');
    expect(rec.statements.map((s) => s.toLowerCase())).toEqual(['select 1', 'begin', 'select 2', 'select 3', 'commit', 'begin', 'select 4', 'rollback']);
    expect(rec.transactions).toBe(2);
    // 'select 1' on its own, the first block; the rolled-back block commits nothing
    expect(rec.commits).toBe(2);
    expect(rec.inFlight).toBe(0);
  });
});

describe('statement budgets of the public API', () => {
  let t: BudgetApp;
  let org: TestOrg;
  const channels: string[] = [];
  beforeAll(async () => {
    t = await buildBudgetApp();
    org = await t.createOrg('Acme');
    for (let i = 0; i < 5; i++) channels.push((await createChannel(t as unknown as TestApp, org, 'telegram', { name: `Chat ${i}` })).id);
  });
  afterAll(async () => t?.close());

  const get = async () => ok(await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' }));

  it('authenticated GET /public/v1/integrations, auth cache warm', async () => {
    await get();
    const rec = await measure(t, async () => expect((await get()).json()).toHaveLength(5));
    // postgres: 1 tidings_rate_take (the API rate limit; PGlite counts in memory),
    //           2 the channels (integrations ⟕ customers of the organisation).
    // pglite:   the channels only.
    expectWithin('GET /integrations (auth cached)', rec, {
      pglite: { statements: 1, transactions: 0, commits: 1 },
      postgres: { statements: 2, transactions: 0, commits: 2 },
    });
  });

  it('authenticated GET /public/v1/integrations, auth cache cold (AUTH_CACHE_SECONDS passed)', async () => {
    await get();
    t.clock.advance(t.deps.config.authCacheSeconds * 1000 + 1000);
    const rec = await measure(t, async () => expect((await get()).json()).toHaveLength(5));
    // postgres: 1 the key's owner (api_keys ⋈ organizations ⋈ plans by key hash: organisation, plan, rate limit, sandbox),
    //           2 tidings_rate_take, 3 the channels.
    // pglite:   1 the key's owner, 2 the channels.
    expectWithin('GET /integrations (auth looked up)', rec, {
      pglite: { statements: 2, transactions: 0, commits: 2 },
      postgres: { statements: 3, transactions: 0, commits: 3 },
    });
  });

  const createPosts = async (ids: string[]) => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'schedule',
        date: new Date(t.clock.now() + 3600_000).toISOString(),
        posts: ids.map((id) => ({ integration: { id }, value: [{ content: 'Budget post' }] })),
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json<unknown[]>();
  };

  it('POST /public/v1/posts with one channel', async () => {
    await createPosts(channels.slice(0, 1));
    const rec = await measure(t, async () => expect(await createPosts(channels.slice(0, 1))).toHaveLength(1));
    // postgres only: tidings_rate_take. Then, before the transaction:
    //   the channels named (integrations by ids), the organisation's plan (organizations ⋈ plans;
    //   its scheduled posts this month are counted only when the plan limits them, and the
    //   test organisation's plan does not);
    // BEGIN; the organisation's approval rules (issue 31: may this key queue on these channels?);
    //   per post: insert the post; schedule it (update due_at, lease, version + 1 and the
    //   new job's id chosen in the service, returning the previous job id); pg-boss insert of the
    //   publish job; pg_notify (wakes the dispatchers; once per transaction for the earliest due
    //   time); the post.created event with its webhook deliveries and their NOTIFY (one CTE; no
    //   webhook here); then the activity log's entry of the request (one insert, issue 31); COMMIT.
    // So 2 (+1 on postgres) + 2 + 1 + 1 + 4 per channel + 1.
    expectWithin('POST /posts, 1 channel', rec, {
      pglite: { statements: 11, transactions: 1, commits: 3 },
      postgres: { statements: 12, transactions: 1, commits: 4 },
    });
  });

  it('POST /public/v1/posts with five channels', async () => {
    await createPosts(channels);
    const rec = await measure(t, async () => expect(await createPosts(channels)).toHaveLength(5));
    // The same as one channel, the 4 statements per post five times and one pg_notify, in one
    // transaction; one activity entry for the request (its group), whatever the channels.
    expectWithin('POST /posts, 5 channels', rec, {
      pglite: { statements: 27, transactions: 1, commits: 3 },
      postgres: { statements: 28, transactions: 1, commits: 4 },
    });
  });

  it('POST /public/v1/imports: 40 groups over two channels (80 posts, 120 rows with thread items)', async () => {
    const importFile = async (tag: string) => {
      // all in one month (the plan is read once per month of the file)
      const when = new Date(Date.UTC(2031, 0, 10, 9));
      const lines = ['group,channel,date,text,position'];
      for (let g = 0; g < 40; g++) {
        const date = new Date(when.getTime() + g * 3600_000).toISOString();
        lines.push(`${tag}${g},Chat 0,${date},Post ${g},0`, `${tag}${g},Chat 0,${date},Reply ${g},1`, `${tag}${g},Chat 1,${date},Post ${g},0`);
      }
      const res = await t.app.inject({ method: 'POST', url: '/public/v1/imports', headers: { authorization: org.apiKey, 'content-type': 'text/csv' }, payload: lines.join('\n') });
      expect(res.statusCode, res.body).toBe(201);
    };
    await importFile('w');
    const rec = await measure(t, () => importFile('b'));
    // Written in bulk (PostsService.createPostsMany), not per post. Before the transaction:
    // postgres only tidings_rate_take; the channels by name (imports); the organisation's plan for
    // the file's one month (its posts are counted only when the plan limits them). BEGIN; the channels
    // by id again (createPostsMany, in the transaction); the approval rules (issue 31); the 120 rows in one insert; the 80 jobs in
    // one pg-boss insert; one pg_notify; the activity log's 40 entries (one per group) in one
    // insert; a post.scheduled event per post (80); the imports row; the import.completed event; COMMIT.
    expectWithin('POST /imports, 120 rows', rec, {
      pglite: { statements: 92, transactions: 1, commits: 3 },
      postgres: { statements: 93, transactions: 1, commits: 4 },
    });
  });
});

describe('statement budgets of the workers', () => {
  let t: BudgetApp;
  let org: TestOrg;
  let tg: TelegramSimulator;
  let receiver: Receiver;
  let dispatcher: Dispatcher | undefined;
  let channel: string;
  beforeAll(async () => {
    tg = await startTelegramSimulator();
    tg.addBot(TOKEN, BOT);
    tg.addChat(CHAT);
    receiver = await startReceiver();
    t = await buildBudgetApp({ PLATFORM_ORIGINS: `https://api.telegram.org=${tg.origin}`, ALLOW_PRIVATE_TARGETS: 'true' });
    org = await t.createOrg('Acme');
    const res = ok(await call(t.app, org.apiKey, { method: 'POST', url: '/public/v1/social/telegram', payload: { botToken: TOKEN, chatId: '@acmenews' } }), 201);
    channel = res.json<{ id: string }>().id;
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await t?.close();
    await tg?.close();
    await receiver?.close();
  });

  /**
   * The worker's dispatcher as `startWorker` builds it, but its idle look at the queue an hour
   * apart and its heartbeat and recovery out of the way (the clock moves 5 s per publish here): in
   * the window only the publish's own statements and the loop's look at the queue after it run.
   */
  async function startDispatcher() {
    const { deps } = t;
    const database = deps.database;
    dispatcher = createDispatcher({
      database,
      posts: createPublishingRepository(database),
      heartbeats: createHeartbeatRepository(database.db),
      jobs: deps.jobs!,
      queue: deps.queue,
      publisher: deps.publisher,
      adapters: deps.adapters,
      clock: t.clock,
      workerId: deps.heartbeat.workerId,
      beat: () => deps.heartbeat.beat(),
      heartbeatMs: 3600_000,
      options: { capacity: deps.config.publish.concurrency, maxIdleMs: 3600_000, deadAfterMs: 3600_000, soleWorker: database.kind === 'pglite' },
      logger: { warn: () => undefined, error: () => undefined },
    });
    await dispatcher.start();
  }

  /** A post due in 5 s; then the clock and its job move 5 s on, and the dispatcher is woken in `fn`'s window. */
  async function publishOne(content: string) {
    const [created] = ok(
      await call(t.app, org.apiKey, {
        method: 'POST',
        url: '/public/v1/posts',
        payload: { type: 'schedule', date: new Date(t.clock.now() + 5000).toISOString(), posts: [{ integration: { id: channel }, value: [{ content }] }] },
      }),
      201,
    ).json<{ postId: string }[]>();
    const postId = created!.postId;
    // Settle what the scheduling woke (the loop's look at the queue) before the window opens.
    const quiet = t.deps.database.recordStatements();
    await settle(quiet);
    quiet.stop();
    t.clock.advance(5000);
    // Due now in the database's clock too (pg-boss compares start times with it), whatever the time the setup took.
    await t.deps.database.sql.executeSql(`UPDATE pgboss.job SET start_after = now() - interval '1 millisecond' WHERE name = $1 AND state < 'active'`, [PUBLISH_QUEUE]);
    const sent = tg.log.filter((r) => /\/sendMessage$/.test(r.path)).length;
    const rec = await measure(t, async () => {
      dispatcher!.poke();
      await waitFor(async () => tg.log.filter((r) => /\/sendMessage$/.test(r.path)).length > sent && dispatcher!.held === 0, 15_000, 'the publish');
    });
    const post = ok(await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}` })).json<{ state: string }>();
    expect(post.state).toBe('PUBLISHED');
    return rec;
  }

  it('one publish: from taking the job to the outcome written', async () => {
    await startDispatcher();
    await publishOne('Warm-up');
    const rec = await publishOne('Budget publish');
    // The same on both drivers (their order differs: on PostgreSQL the loop's look runs on
    // another connection while the claim runs):
    // the loop's round: pg-boss fetch (takes the job; fewer than asked, so no second fetch), lease
    //   the row (update posts ⋈ integrations by id and version), the next due time
    //   (min(start_after) of the queue);
    // claim: BEGIN; the post FOR UPDATE with its channel (one join; readItemContext and the send
    //   input reuse it); mark the attempt sending; COMMIT;
    // (the request to the platform)
    // outcome: BEGIN; the post FOR UPDATE; update it PUBLISHED, answering the thread's next item;
    //   the post.published event with its webhook deliveries, their NOTIFY and the notification
    //   (one CTE); the activity log's post.published entry (one insert, issue 31); COMMIT;
    // the loop's round the finished job wakes: pg-boss complete (of every job finished since the
    //   last round, one statement), pg-boss fetch (nothing), the next due time.
    // Commits: the 2 blocks and the 6 statements outside them (2 fetches, the lease, 2 looks at
    // the next due time, the complete).
    expectWithin('one publish (telegram)', rec, {
      pglite: { statements: 16, transactions: 2, commits: 8 },
      postgres: { statements: 16, transactions: 2, commits: 8 },
    });
  });

  it('one webhook delivery', async () => {
    const [hook] = await t.deps.database.db
      .insert(webhooks)
      .values({ organizationId: org.id, name: 'hook', url: receiver.url, events: [], secret: t.deps.secretBox.seal(newWebhookSecret()) })
      .returning();
    const emit = (id: string) =>
      t.deps.database.db.transaction((tx) => emitEvent(tx, org.id, 'integration.connected', { integration: { id } }, new Date(t.clock.now()), { webhookId: hook!.id }));
    await emit('warm-up');
    expect(await t.deps.webhookDelivery.runOnce()).toBe(1);
    await emit('budget');
    const rec = await measure(t, async () => expect(await t.deps.webhookDelivery.runOnce()).toBe(1));
    expect(receiver.requests).toHaveLength(2);
    // 1 lease the due deliveries (per-webhook limits, ordering; update … returning ids),
    // 2 read them with their event and webhook (webhook_deliveries ⋈ events ⋈ webhooks by ids),
    // (the request to the receiver)
    // 3 record the outcomes in one statement (attempt log rows, delivery state, webhook's streak).
    expectWithin('one webhook delivery', rec, {
      pglite: { statements: 3, transactions: 0, commits: 3 },
      postgres: { statements: 3, transactions: 0, commits: 3 },
    });
  });
});
