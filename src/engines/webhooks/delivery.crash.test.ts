import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli, startService, type ServiceProcess } from '../../../test/e2e/processes.js';
import { TEST_SECRET } from '../../../test/helpers.js';
import { openTestDatabase, testDbKind, withAdminClient } from '../../../test/test-db.js';
import { until } from '../../platforms/common/meta-crash.testkit.js';
import { startReceiver, type Receiver } from '../../core/webhooks/receiver.testkit.js';

/**
 * The service (a real `tidings serve`: embedded PGlite, or one process on the test's PostgreSQL
 * database) is killed with SIGKILL while webhook deliveries are in flight — the receiver holds its
 * answers, so they have arrived but their outcome never reached the service — and started again.
 * Every event must then be delivered, the interrupted ones again with the same `webhook-id`, and
 * none lost.
 */

const mode = testDbKind();
const EVENTS = 12;
const HOLD_MS = 1500;
let receiver: Receiver;
let service: ServiceProcess | undefined;
let env: Record<string, string>;
let key: string;
let dataDir: string;
let dbUrl: string | undefined;
/** the receiver answers 200 after HOLD_MS while `holding`, at once afterwards */
let holding = true;

beforeAll(async () => {
  receiver = await startReceiver((_req, _i, res) => {
    const reply = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (holding) setTimeout(reply, HOLD_MS);
    else reply();
  });
  dataDir = mkdtempSync(join(tmpdir(), 'tidings-webhook-crash-'));
  if (mode === 'postgres') {
    const db = await openTestDatabase(inject('testDb'));
    await db.database.close();
    dbUrl = db.url;
  }
  env = {
    DATA_DIR: dataDir,
    API_RATE_LIMIT: '100000',
    WORKER_HEARTBEAT_SECONDS: '1',
    ALLOW_PRIVATE_TARGETS: 'true',
    ...(dbUrl ? { DATABASE_URL: dbUrl, CREDENTIALS_SECRET: TEST_SECRET } : {}),
  };
  const org = await runCli(['org', 'create', '--name', 'Webhook crash', '--json'], env);
  if (org.code !== 0) throw new Error(`org create failed: ${org.stderr}`);
  key = (JSON.parse(org.stdout) as { apiKey: string }).apiKey;
  service = await startService([], env);
}, 60_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  await receiver?.close();
  await rm(dataDir, { recursive: true, force: true });
  if (dbUrl) {
    const name = new URL(dbUrl).pathname.slice(1);
    await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  }
});

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }> {
  const res = await fetch(`${service!.url}/public/v1${path}`, {
    method,
    headers: { authorization: key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : undefined) as T };
}

describe(`webhook delivery, service killed mid-delivery (${mode})`, () => {
  it('after the restart every event is delivered, the interrupted ones again with the same webhook-id; none lost', async () => {
    const hook = await api<{ id: string; secret: string }>('POST', '/webhooks', { name: 'crash', url: receiver.url });
    expect(hook.status).toBe(201);
    const made: string[] = [];
    for (let i = 0; i < EVENTS; i++) {
      const r = await api<{ deliveryId: string }>('POST', `/webhooks/${hook.json.id}/test`);
      expect(r.status).toBe(202);
      made.push(r.json.deliveryId);
    }
    // Some deliveries have reached the receiver, whose answers are held: the service dies first.
    await until(() => receiver.requests.length >= 2, 20_000, 'deliveries to reach the receiver');
    const before = receiver.requests.length;
    await service!.stop('SIGKILL');
    service = undefined;
    holding = false;
    service = await startService([], env);

    // Every delivery ends delivered (a 200 answered to the restarted service) — the interrupted ones sent once more.
    const delivered = async () => {
      const log = await api<{ deliveries: { deliveryId: string; state: string }[] }>('GET', `/webhooks/${hook.json.id}/deliveries`);
      expect(log.status).toBe(200);
      return new Set(log.json.deliveries.filter((d) => d.state === 'delivered').map((d) => d.deliveryId));
    };
    await until(async () => (await delivered()).size === EVENTS, 90_000, 'every delivery to be delivered', 200);
    const ids = () => new Set(receiver.requests.map((r) => String(r.headers['webhook-id'])));
    expect(before).toBeLessThan(receiver.requests.length);
    // The ids sent are exactly the deliveries made: re-deliveries reuse theirs, nothing invented.
    expect([...ids()].sort()).toEqual([...made].sort());
    const again = receiver.requests.length - EVENTS;
    expect(again).toBeGreaterThanOrEqual(1);
    // Each request verifies with the secret shown at creation.
    const wh = new Webhook(hook.json.secret);
    for (const r of receiver.requests) expect(() => wh.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
  }, 150_000);
});
