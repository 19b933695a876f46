/**
 * MCP front door against the plain API, run by hand (never in CI):
 *   npm run build && node --import tsx bench/mcp-bench.ts
 *
 * Embedded mode, the built service as a child process, an organisation with 5 channels, rate limit
 * raised. Measures, 10 connections for 10 s each with autocannon:
 *   - api:       GET /public/v1/integrations (the baseline);
 *   - stateless: POST /mcp tools/call list_channels with no session (a server per request);
 * then, with the SDK's client over one session, 1,000 sequential tools/call list_channels
 * (calls/s and latency percentiles), and the RSS after each stage.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { percentile, rssMb, seedOrganization, startService, stop } from './lib.js';

const PORT = 3918;
const base = `http://127.0.0.1:${PORT}`;
const dataDir = mkdtempSync(join(tmpdir(), 'tidings-mcp-bench-'));
const env = { DATA_DIR: dataDir, API_RATE_LIMIT: '1000000000', API_RATE_WINDOW_SECONDS: '60' };
const first = await startService(env, PORT);
await stop(first.child);
const apiKey = await seedOrganization(env);
const { child } = await startService(env, PORT);

const load = async (opts: Partial<autocannon.Options>) => {
  const r = await autocannon({ url: `${base}/public/v1/integrations`, connections: 10, duration: 10, headers: { authorization: apiKey }, ...opts });
  return { reqPerSec: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, rssMb: rssMb(child.pid!) };
};

try {
  const api = await load({});
  const stateless = await load({
    url: `${base}/mcp`,
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_channels', arguments: {} } }),
  });

  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: apiKey } } }));
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < 1000; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'list_channels', arguments: {} });
    if (r.isError) throw new Error(JSON.stringify(r.content));
    times.push(performance.now() - t0);
  }
  const seconds = (performance.now() - started) / 1000;
  await client.close();
  times.sort((a, b) => a - b);
  const session = { callsPerSec: Math.round(1000 / seconds), p50: +percentile(times, 50).toFixed(2), p99: +percentile(times, 99).toFixed(2), rssMb: rssMb(child.pid!) };
  console.log(JSON.stringify({ api, stateless, session }));
} finally {
  await stop(child);
  rmSync(dataDir, { recursive: true, force: true });
}
