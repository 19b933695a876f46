import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTelegramSimulator, type TelegramSimulator } from '../../src/platforms/telegram/telegram.simulator.js';
import { testDbKind } from '../test-db.js';
import { freePort } from '../wire.js';
import { startService, type ServiceProcess } from './processes.js';

/** The official CLI, installed as a dev dependency (postiz@2.1.0), run as a user would run it. */
const POSTIZ = fileURLToPath(new URL('../../node_modules/postiz/dist/index.js', import.meta.url));


/** A person in a browser, over real HTTP: keeps cookies, reads the CSRF token off each page. */
class HttpBrowser {
  private cookies = new Map<string, string>();
  html = '';
  constructor(private readonly base: string) {}
  private async send(path: string, init: RequestInit = {}) {
    const res = await fetch(`${this.base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const text = await res.text();
    if ((res.headers.get('content-type') ?? '').startsWith('text/html')) this.html = text;
    return { status: res.status, location: res.headers.get('location'), text };
  }
  get = (path: string) => this.send(path);
  post = (path: string, fields: Record<string, string>) => {
    const csrf = /name="_csrf" value="([^"]+)"/.exec(this.html)?.[1] ?? '';
    return this.send(path, { method: 'POST', body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  };
}

describe.runIf(testDbKind() === 'pglite')('the official postiz CLI logs in with the device flow (real processes)', () => {
  let service: ServiceProcess | undefined;
  let telegram: TelegramSimulator | undefined;
  afterAll(async () => {
    await service?.stop('SIGKILL');
    await telegram?.close();
  });

  it('postiz auth:login → approved in the browser → integrations:list runs with the saved pos_ token', async () => {
    telegram = await startTelegramSimulator();
    telegram.addBot('700001:CliLoginBotSecretAAbbCCddEEffGGhh', { id: 700001, username: 'cli_bot' });
    telegram.addChat({ id: -1001000000777, title: 'CLI channel', admins: [700001] });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    service = await startService([], {
      DATA_DIR: mkdtempSync(join(tmpdir(), 'tidings-postiz-cli-')),
      PORT: String(port),
      PUBLIC_URL: url,
      DEVICE_POLL_INTERVAL_SECONDS: '1',
      PLATFORM_ORIGINS: `https://api.telegram.org=${telegram.origin}`,
      ALLOW_PRIVATE_TARGETS: 'true',
    });

    // the person signs up (the first account) in the browser
    const browser = new HttpBrowser(url);
    await browser.get('/account/signup');
    const signup = await browser.post('/account/signup', { email: 'cli@example.test', password: 'correct horse battery', organization: 'CLI Org' });
    expect(signup.status).toBe(303);

    // the CLI starts the device flow and waits, polling
    const home = mkdtempSync(join(tmpdir(), 'postiz-home-'));
    const cliEnv = { ...process.env, HOME: home, POSTIZ_AUTH_SERVER: url, POSTIZ_API_KEY: '', POSTIZ_API_URL: '' };
    const login = spawn(process.execPath, [POSTIZ, 'auth:login'], { env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    login.stdout.on('data', (d: Buffer) => (out += d.toString()));
    login.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => login.on('close', resolve));
    const deadline = Date.now() + 30_000;
    let userCode: string | undefined;
    while (!userCode && Date.now() < deadline) {
      userCode = /│\s+([A-Z]{4}-[A-Z]{4})\s+│/.exec(out)?.[1];
      if (!userCode) await new Promise((r) => setTimeout(r, 100));
    }
    expect(userCode, out).toBeDefined();
    expect(out).toContain(`${url}/device/verify`);

    // …and the person approves it on the verification page, for their organisation
    const verify = await browser.get(`/device/verify?code=${userCode}`);
    expect(verify.status).toBe(200);
    expect(verify.text).toContain('Command-line login (postiz CLI)');
    const orgId = /<option value="([0-9a-f-]{36})">CLI Org<\/option>/.exec(verify.text)![1]!;
    const approved = await browser.post('/device/verify', { code: userCode!, organizationId: orgId, decision: 'approve' });
    expect(approved.status).toBe(200);

    expect(await exited, out).toBe(0);
    expect(out).toContain('Successfully authenticated');
    const creds = JSON.parse(readFileSync(join(home, '.postiz', 'credentials.json'), 'utf8')) as { accessToken: string; apiUrl: string; organizationId: string };
    expect(creds).toEqual({ accessToken: expect.stringMatching(/^pos_[0-9A-Za-z]{40}$/), apiUrl: url, organizationId: orgId });

    // the saved token acts for the organisation: connect a channel with it, then list with the CLI
    const connect = await fetch(`${url}/public/v1/social/telegram`, {
      method: 'POST',
      headers: { authorization: creds.accessToken, 'content-type': 'application/json' },
      body: JSON.stringify({ botToken: '700001:CliLoginBotSecretAAbbCCddEEffGGhh', chatId: '-1001000000777' }),
    });
    expect(connect.status, await connect.clone().text()).toBe(201);
    const list = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [POSTIZ, 'integrations:list'], { env: cliEnv, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('close', (code) => resolve({ code, stdout }));
    });
    expect(list.code, list.stdout).toBe(0);
    const listed = JSON.parse(list.stdout.slice(list.stdout.indexOf('['))) as { name: string; identifier: string }[];
    expect(listed).toEqual([expect.objectContaining({ name: 'CLI channel', identifier: 'telegram' })]);

    // and the approval is listed where the person can revoke it
    expect((await browser.get('/account/approved-apps')).text).toContain('<td>CLI Org</td>');
  });
});
