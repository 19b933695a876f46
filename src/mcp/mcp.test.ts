import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers.js';
import { callError, callOk, connectStreamable } from '../../test/mcp/mcp-client.js';

const { t, orgs } = useTestApp({ env: { PUBLIC_URL: 'http://127.0.0.1:1' } }, 'Acme', 'Beta');
let origin: string;

beforeAll(async () => {
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
});

describe('MCP over Streamable HTTP', () => {
  it('lists tools with schemas and annotations, and calls one with the API key after Bearer', async () => {
    const client = await connectStreamable(`${origin}/mcp`, `Bearer ${orgs.acme.apiKey}`);
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining(['list_channels', 'create_posts', 'list_posts', 'delete_post']));
    const del = tools.find((x) => x.name === 'delete_post')!;
    expect(del.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(del.inputSchema).toMatchObject({ type: 'object', required: ['postId'] });
    const listed = await callOk<{ channels: unknown[] }>(client, 'list_channels');
    expect(listed.channels).toEqual([]);
    const bad = await callError(client, 'list_posts', { startDate: 'yesterday', endDate: '2026-01-01T00:00:00Z' });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.fields?.map((f) => f.path)).toEqual(['startDate']);
    await client.close();
  });
});
