import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signUp } from '../browser.js';
import { callError, callOk } from '../mcp/mcp-client.js';
import { MemoryOAuthProvider, startCallbackServer, type CallbackServer } from '../mcp/oauth-provider.js';
import { checkA11y } from './axe.js';
import { startWebHarness, type WebHarness } from './harness.js';

// "Sign in instead of pasting a key": an assistant built on the MCP SDK meets /mcp without a
// credential, registers itself, and sends the person to this service in Chromium; they sign in,
// see which assistant asks and choose what it may do; the browser lands on the assistant's
// loopback listener with the code; the assistant finishes and calls tools with the token.

vi.setConfig({ testTimeout: 120_000 });

const EMAIL = 'maya@acme.example';
const PASSWORD = 'correct horse battery';

describe('an assistant signs in with OAuth (MCP SDK client, consent in Chromium)', () => {
  let h: WebHarness;
  let callback: CallbackServer;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    h = await startWebHarness();
    callback = await startCallbackServer();
    await signUp(h.t.app, { email: EMAIL, password: PASSWORD, name: 'Maya', organization: 'Acme Bakery' });
    // a browser with no session: the person signs in on the way
    context = await h.chromium.newContext({ baseURL: h.origin, viewport: { width: 1360, height: 860 }, timezoneId: 'UTC', locale: 'en-GB' });
    page = await context.newPage();
  });
  afterAll(async () => {
    await callback?.close();
    await h?.close();
  });

  /** An SDK client whose authProvider opens the consent URL in Chromium. */
  function assistant(name: string) {
    const provider = new MemoryOAuthProvider(callback.url, name, async (url) => {
      await page.goto(url.toString());
    });
    const connect = async () => {
      const client = new Client({ name, version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${h.origin}/mcp`), { authProvider: provider });
      await client.connect(transport);
      return { client, transport };
    };
    return { provider, connect };
  }

  /** Starts the flow: the first connection is refused and the SDK sends the browser to consent. */
  async function begin(name: string) {
    const a = assistant(name);
    const client = new Client({ name, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${h.origin}/mcp`), { authProvider: a.provider });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(a.provider.authorizationUrls).toHaveLength(1);
    const url = a.provider.authorizationUrls[0]!;
    expect(url.searchParams.get('resource')).toBe(`${h.origin}/mcp`);
    expect(url.searchParams.get('scope')).toBe('mcp:read mcp:write');
    return { ...a, transport };
  }

  /** The callback's query once the person answered; checks state and issuer. */
  async function codeFrom(provider: MemoryOAuthProvider) {
    const q = await callback.next();
    expect(q.get('error')).toBeNull();
    expect(q.get('state')).toBe(provider.lastState);
    expect(q.get('iss')).toBe(h.origin);
    await page.getByText('You can close this window.').waitFor();
    return q.get('code')!;
  }

  it('signs in, approves read and write on the consent page naming the assistant; the assistant lists channels', async () => {
    const { provider, transport, connect } = await begin('Claude Desktop');

    // not signed in: the sign-in page first, then back to the same request
    await page.waitForURL(/\/account\/login\?next=/);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/oauth\/authorize\?/);

    await page.getByRole('heading', { level: 1, name: 'Allow Claude Desktop?' }).waitFor();
    await page.getByText('Claude Desktop asks to act for one of your organisations').waitFor();
    await page.getByText('registered itself').waitFor();
    const group = page.getByRole('group', { name: 'What may Claude Desktop do?' });
    const readOnly = group.getByRole('radio', { name: /^Read only/ });
    const readWrite = group.getByRole('radio', { name: /^Read and write/ });
    expect(await readWrite.isChecked()).toBe(true);
    expect(await readOnly.isChecked()).toBe(false);
    expect(await page.getByLabel('Organisation', { exact: true }).inputValue()).toMatch(/^[0-9a-f-]{36}$/);
    await checkA11y(page, 'the consent page');

    // the page at desktop width and at a phone's
    await page.screenshot({ path: '/tmp/mcp-consent-desktop.png', fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: '/tmp/mcp-consent-390.png', fullPage: true });
    // nothing wider than the phone's screen
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await checkA11y(page, 'the consent page at 390px');
    await page.setViewportSize({ width: 1360, height: 860 });

    await page.getByRole('button', { name: 'Allow' }).click();
    const code = await codeFrom(provider);
    await transport.finishAuth(code);
    expect(provider.stored?.scope).toBe('mcp:read mcp:write');

    const { client } = await connect();
    const listed = await callOk<{ channels: unknown[] }>(client, 'list_channels');
    expect(listed.channels).toEqual([]);
    // a tool that changes data is allowed too: it gets as far as the post it names
    const missing = await callError(client, 'delete_post', { postId: '00000000-0000-4000-8000-000000000000' });
    expect(missing.code).not.toBe('INSUFFICIENT_SCOPE');
    await client.close();
  });

  it('approves read only: a read tool works, a tool that changes data answers INSUFFICIENT_SCOPE', async () => {
    const { provider, transport, connect } = await begin('Cursor');
    // still signed in: straight to the consent page
    await page.waitForURL(/\/oauth\/authorize\?/);
    await page.getByRole('heading', { level: 1, name: 'Allow Cursor?' }).waitFor();
    await page.getByRole('radio', { name: /^Read only/ }).check();
    await page.getByRole('button', { name: 'Allow' }).click();
    await transport.finishAuth(await codeFrom(provider));
    expect(provider.stored?.scope).toBe('mcp:read');

    const { client } = await connect();
    await callOk(client, 'list_channels');
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'delete_post')?.annotations?.readOnlyHint).toBe(false);
    const refused = await callError(client, 'delete_post', { postId: '00000000-0000-4000-8000-000000000000' });
    expect(refused.code).toBe('INSUFFICIENT_SCOPE');
    expect(refused.message).toContain('read access only');
    await client.close();

    // the person sees both assistants, and what each may do, among their approved apps
    await page.goto('/account/approved-apps');
    await page.getByRole('cell', { name: /^Claude Desktop/ }).waitFor();
    await page.getByRole('cell', { name: /^Cursor/ }).waitFor();
  });
});
