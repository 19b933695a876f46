import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDbKind } from '../test-db.js';
import { BIN, runCli, startService, type ServiceProcess } from './processes.js';

/** Starts `tidings mcp` exactly as an assistant's configuration does (command, args, env), and connects. */
function stdioTransport(args: string[], env: Record<string, string> = {}) {
  // the SDK gives the child only a few variables of ours (PATH, HOME…) plus `env`, as assistants do
  return new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env, stderr: 'pipe' });
}

function stderrOf(transport: StdioClientTransport): () => string {
  let text = '';
  transport.stderr?.on('data', (d: Buffer) => (text += d.toString()));
  return () => text;
}

describe.runIf(testDbKind() === 'pglite')('tidings mcp: stdio for desktop assistants, relayed to the service', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-mcp-stdio-'));
  let service: ServiceProcess | undefined;
  let apiKey: string;

  beforeAll(async () => {
    const created = await runCli(['org', 'create', '--name', 'Acme', '--json'], { DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    apiKey = (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
    // sessions end after 4 s idle here, so the bridge's reopening of a forgotten session is seen
    service = await startService([], { DATA_DIR: dataDir, MCP_SESSION_IDLE_TIMEOUT: '4s' });
  }, 120_000);

  afterAll(async () => {
    await service?.stop('SIGKILL');
  });

  it('lists the tools, calls list_channels, answers a bad argument with isError, and ends when stdin closes', async () => {
    const transport = stdioTransport(['--key', apiKey, '--url', service!.url]);
    const stderr = stderrOf(transport);
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toBe('tidings');

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['list_channels', 'create_posts', 'get_channel_settings']));

    const listed = (await client.callTool({ name: 'list_channels', arguments: {} })) as CallToolResult;
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    expect(listed.structuredContent).toEqual({ channels: [] });

    const bad = (await client.callTool({ name: 'list_posts', arguments: { startDate: 'yesterday', endDate: '2026-01-01T00:00:00Z' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content[1] as { text: string }).text)).toMatchObject({ code: 'VALIDATION_FAILED', fields: [{ path: 'startDate' }] });

    await client.close();
    expect(stderr()).toContain(`relaying standard input/output to ${service!.url}/mcp`);
  }, 60_000);

  it('writes nothing but JSON-RPC on stdout, and ends with status 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--key', apiKey, '--url', service!.url], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
    await expect.poll(() => stdout.includes('\n'), { timeout: 30_000 }).toBe(true);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })}\n`);
    await expect.poll(() => stdout.split('\n').length > 2, { timeout: 10_000 }).toBe(true);
    child.stdin.end();
    const started = Date.now();
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    const lines = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: number; result: Record<string, unknown> });
    expect(lines.map((l) => l.id)).toEqual([1, 2]);
    expect(lines[0]!.result).toMatchObject({ protocolVersion: LATEST_PROTOCOL_VERSION, serverInfo: { name: 'tidings' } });
    expect((lines[1]!.result.tools as unknown[]).length).toBeGreaterThan(5);
  }, 60_000);

  it('reads the key from TIDINGS_API_KEY and the address from TIDINGS_URL', async () => {
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    await client.connect(stdioTransport([], { TIDINGS_API_KEY: apiKey, TIDINGS_URL: `${service!.url}/` }));
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    await client.close();
  }, 60_000);

  it('opens a new session by itself when the service has ended the idle one', async () => {
    const transport = stdioTransport(['--key', apiKey, '--url', service!.url]);
    const stderr = stderrOf(transport);
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    await client.connect(transport);
    expect((await client.listTools()).tools.length).toBeGreaterThan(5);
    await new Promise((r) => setTimeout(r, 5000));
    const listed = (await client.callTool({ name: 'list_channels', arguments: {} })) as CallToolResult;
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    expect(stderr()).toContain('the service had ended the session; a new one was opened');
    await client.close();
  }, 60_000);

  it('without a key it exits with status 2 and one line naming --key and TIDINGS_API_KEY', async () => {
    const r = await runCli(['mcp', '--url', service!.url], { TIDINGS_API_KEY: '' }, '');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--key.*TIDINGS_API_KEY/);
  });

  it('a wrong key: initialize answers a JSON-RPC error saying the service refused the credential', async () => {
    const transport = stdioTransport(['--key', 'tdk_wrongwrongwrongwrongwrongwrongwrongwrong', '--url', service!.url]);
    const stderr = stderrOf(transport);
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    const refused = await client.connect(transport).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect((refused as McpError).message).toMatch(/refused the credential given with --key or TIDINGS_API_KEY \(HTTP 401\)/);
    expect(stderr()).toContain('refused the credential');
    await transport.close();
  }, 60_000);

  it('an unreachable service: the request is answered with an error naming the address', async () => {
    const transport = stdioTransport(['--key', apiKey, '--url', 'http://127.0.0.1:9']);
    const client = new Client({ name: 'desktop-assistant', version: '1.0.0' });
    const failed = await client.connect(transport).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(McpError);
    expect((failed as McpError).message).toContain('Cannot reach Tidings at http://127.0.0.1:9/mcp');
    await transport.close();
  }, 60_000);
});
