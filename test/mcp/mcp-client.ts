import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

/** An MCP client of the SDK over Streamable HTTP, with the credential in the `Authorization` header (or in the URL when none is given). */
export async function connectStreamable(url: string, credential?: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'tidings-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...(credential ? { authorization: credential } : {}), ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** An MCP client of the SDK over the old HTTP+SSE transport (`GET /sse/{key}` + `POST /message/{key}`). */
export async function connectSse(origin: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: 'tidings-test-sse', version: '1.0.0' });
  await client.connect(new SSEClientTransport(new URL(`${origin}/sse/${apiKey}`)));
  return client;
}

/** A successful tool call's structured content (fails the test with the tool's text when it is an error). */
export async function callOk<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  expect(r.isError, `${name}: ${text}`).toBeFalsy();
  return r.structuredContent as T;
}

/** A tool call that must fail: its parsed error detail (code, message, fields). */
export async function callError(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(r.isError, `${name} should fail`).toBe(true);
  const detail = r.content[1];
  expect(detail?.type).toBe('text');
  return JSON.parse((detail as { text: string }).text) as { code: string; status: number; message: string; fields?: { path: string; message: string }[]; retryAfterSeconds?: number; requestId: string };
}
