import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminSocketPath } from '../../src/admin/admin-socket.js';
import { openTestDatabase, testDbKind, type TestDatabase } from '../test-db.js';
import { TEST_SECRET } from '../helpers.js';
import { runCli, startService, type ServiceProcess } from './processes.js';

interface OrgCreated {
  organization: { id: string; name: string };
  apiKey: string;
}

async function getJson(url: string, key?: string) {
  const res = await fetch(url, { headers: key ? { authorization: key } : {} });
  return { status: res.status, headers: res.headers, body: (await res.json()) };
}

describe.runIf(testDbKind() === 'pglite')('CLI and service in embedded mode (real processes)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-cli-'));
  const env = { DATA_DIR: dataDir };
  let service: ServiceProcess | undefined;
  let betaOrg: OrgCreated | undefined;

  afterAll(async () => {
    await service?.stop('SIGKILL');
  });

  it('org create works before the service ever ran, and prints the documented JSON', async () => {
    const r = await runCli(['org', 'create', '--name', 'Acme', '--json'], env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as OrgCreated;
    expect(Object.keys(out).sort()).toEqual(['apiKey', 'organization']);
    expect(out.organization).toEqual({ id: expect.any(String), name: 'Acme' });
    expect(out.apiKey).toMatch(/^tdk_[0-9A-Za-z]{40}$/);
  });

  it('while the service runs, the CLI reaches it through the admin socket and the new key works over HTTP', async () => {
    service = await startService([], env);
    const r = await runCli(['org', 'create', '--name', 'Beta', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const beta = JSON.parse(r.stdout) as OrgCreated;
    const list = await getJson(`${service.url}/public/v1/integrations`, beta.apiKey);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);

    const created = await runCli(['key', 'create', '--org', beta.organization.id, '--name', 'ci', '--json'], env);
    const { apiKey, key } = JSON.parse(created.stdout) as { apiKey: string; key: { id: string } };
    expect((await getJson(`${service.url}/public/v1/groups`, apiKey)).status).toBe(200);

    const listed = await runCli(['key', 'list', '--org', beta.organization.id, '--json'], env);
    const keys = (JSON.parse(listed.stdout) as { keys: { name: string; prefix: string }[] }).keys;
    expect(keys.map((k) => k.name)).toEqual(['default', 'ci']);
    expect(listed.stdout).not.toContain(apiKey);

    const human = await runCli(['key', 'list', '--org', beta.organization.id], env);
    expect(human.stdout).toContain(`${apiKey.slice(0, 10)}…  ci`);

    expect((await runCli(['key', 'revoke', key.id], env)).code).toBe(0);
    expect((await getJson(`${service.url}/public/v1/groups`, apiKey)).status).toBe(401);
    const again = await runCli(['key', 'revoke', key.id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already revoked');

    expect((await runCli(['plan', 'set', '--org', beta.organization.id, '--plan', 'free'], env)).code).toBe(0);
    const limited = await getJson(`${service.url}/public/v1/groups`, beta.apiKey);
    expect(limited.headers.get('ratelimit-limit')).toBe('30');
    const bad = await runCli(['plan', 'set', '--org', beta.organization.id, '--plan', 'gold'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Unknown plan "gold"');

    betaOrg = beta;
  });

  it('credits set/grant/show manage video credits through the socket, and the API sees them', async () => {
    const set = await runCli(['credits', 'set', '--plan', 'free', '--monthly', '3'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('Plan "free" now gives 3 video credits a month.');
    const granted = await runCli(['credits', 'grant', '--org', betaOrg!.organization.id, '--credits', '2', '--note', 'launch', '--json'], env);
    expect(granted.code, granted.stderr).toBe(0);
    expect((JSON.parse(granted.stdout) as { credits: unknown }).credits).toMatchObject({ plan: 'free', allowance: 3, granted: 2, used: 0, remaining: 5 });
    const shown = await runCli(['credits', 'show', '--org', betaOrg!.organization.id], env);
    expect(shown.stdout).toMatch(/^\d{4}-\d{2} on plan "free": allowance 3 \+ 2 granted, used 0, reserved 0, remaining 5 \(renews /);
    expect((await getJson(`${service!.url}/public/v1/video/credits`, betaOrg!.apiKey)).body).toMatchObject({ allowance: 3, granted: 2, remaining: 5 });
    const unknownPlan = await runCli(['credits', 'set', '--plan', 'gold', '--monthly', '3'], env);
    expect(unknownPlan.code).toBe(1);
    expect(unknownPlan.stderr).toContain('Plan "gold" not found');
    const notNumber = await runCli(['credits', 'set', '--plan', 'free', '--monthly', 'lots'], env);
    expect(notNumber.code).toBe(1);
    expect(notNumber.stderr).toContain('--monthly: a whole number of credits, or "unlimited"');
    expect((await runCli(['credits', 'set', '--plan', 'free', '--monthly', 'unlimited'], env)).stdout).toContain('unlimited video credits');
  }, 180_000);

  it('user create makes the first account (owner of the organisations made before) with a link to choose its password; through the socket too', async () => {
    const first = await runCli(['user', 'create', '--email', ' Boss@Example.TEST ', '--name', 'Boss', '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const made = JSON.parse(first.stdout) as { user: { email: string }; setPasswordLink: string };
    expect(made.user.email).toBe('boss@example.test');
    expect(made.setPasswordLink).toMatch(new RegExp(`^http://localhost:\\d+/account/reset\\?token=[0-9A-Za-z]{43}$`));
    const second = await runCli(['user', 'create', '--email', 'dev@example.test', '--password-stdin'], env, 'a long enough password\n');
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('Password set');
    const list = JSON.parse((await runCli(['user', 'list', '--json'], env)).stdout) as { users: { email: string; deploymentOwner: boolean; organizations: { name: string; role: string }[] }[] };
    expect(list.users.map((u) => [u.email, u.deploymentOwner, u.organizations.map((o) => `${o.name}:${o.role}`)])).toEqual([
      ['boss@example.test', true, ['Acme:owner', 'Beta:owner']],
      ['dev@example.test', false, ["dev's organisation:owner"]],
    ]);
    // the running service answers the same commands on its admin socket, and the password works over HTTP
    const link = await runCli(['user', 'reset-link', '--email', 'dev@example.test'], env);
    expect(link.stdout).toMatch(/reset\?token=/);
    const form = await fetch(`${service!.url}/account/login`);
    const cookie = form.headers.getSetCookie()[0]!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const login = await fetch(`${service!.url}/account/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, email: 'dev@example.test', password: 'a long enough password' }).toString(),
    });
    expect(login.status).toBe(303);
    const bad = await runCli(['user', 'create', '--email', 'not-an-email'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--email: Enter an email address');
    const short = await runCli(['user', 'create', '--email', 'x@example.test', '--password-stdin'], env, 'short\n');
    expect(short.stderr).toContain('--password: Use at least 10 characters');
  });

  it('refuses a second process on the same data folder with a clear message', async () => {
    const second = await runCli(['serve'], { ...env, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`The data folder ${dataDir} is in use by another Tidings process (pid ${service!.child.pid})`);
  });

  it('stops cleanly on SIGTERM, releasing the lock and the socket', async () => {
    expect(await service!.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, 'tidings.lock'))).toBe(false);
    expect(existsSync(adminSocketPath(dataDir))).toBe(false);
    const r = await runCli(['org', 'list', '--json'], env);
    expect((JSON.parse(r.stdout) as { organizations: { name: string }[] }).organizations.map((o) => o.name)).toEqual(['Acme', 'Beta', "dev's organisation"]);
  });

  it('recovers after SIGKILL: stale lock and socket are taken over', async () => {
    const s = await startService([], env);
    await s.stop('SIGKILL');
    expect(existsSync(join(dataDir, 'tidings.lock'))).toBe(true);
    const r = await runCli(['org', 'create', '--name', 'After crash', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
  });

  it('a wrong setting stops the start naming the variable', async () => {
    const r = await runCli(['serve'], { ...env, PORT: 'eighty', API_RATE_LIMIT: '-3' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('PORT: ');
    expect(r.stderr).toContain('API_RATE_LIMIT: ');
  });
});

describe.runIf(testDbKind() === 'postgres')('CLI and separate api/worker processes on PostgreSQL (real processes)', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  const services: ServiceProcess[] = [];

  beforeAll(async () => {
    db = await openTestDatabase(inject('testDb'));
    await db.database.close();
    env = { DATABASE_URL: db.url!, CREDENTIALS_SECRET: TEST_SECRET, DATA_DIR: mkdtempSync(join(tmpdir(), 'tidings-pg-')), API_RATE_LIMIT: '5' };
  });
  afterAll(async () => {
    for (const s of services) await s.stop('SIGKILL');
    const { withAdminClient } = await import('../test-db.js');
    const name = new URL(db.url!).pathname.slice(1);
    await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  });

  it('requires CREDENTIALS_SECRET', async () => {
    const r = await runCli(['org', 'list'], { ...env, CREDENTIALS_SECRET: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CREDENTIALS_SECRET: required when DATABASE_URL is set');
  });

  it('two API processes and a worker share the database and one rate-limit budget', async () => {
    const r = await runCli(['org', 'create', '--name', 'Acme', '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const acme = JSON.parse(r.stdout) as OrgCreated;
    const [api1, api2, worker] = await Promise.all([
      startService(['--role', 'api'], env),
      startService(['--role', 'api'], env),
      startService(['--role', 'worker'], env),
    ]);
    services.push(api1, api2, worker);

    const ready = await getJson(`${api1.url}/readyz`);
    expect(ready.status).toBe(200);

    // 5 per window across both processes: the 6th is refused whichever process gets it.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await getJson(`${(i % 2 ? api2 : api1).url}/public/v1/integrations`, acme.apiKey)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);

    // A key made by the CLI while they run works at once on both.
    const k = JSON.parse((await runCli(['key', 'create', '--org', acme.organization.id, '--name', 'x', '--json'], env)).stdout) as { apiKey: string };
    expect((await getJson(`${api2.url}/public/v1/integrations`, k.apiKey)).status).toBe(429);

    await worker.stop('SIGTERM');
  });
});
