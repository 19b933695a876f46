import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, useTestApp } from '../../../test/helpers.js';
import { createChannel, eventsOf, waitFor } from '../../../test/factories.js';

/**
 * POST /imports (dry run, atomic import, background job), GET /imports/{id} and
 * GET /exports/posts through the HTTP API; media URLs served by a local HTTP server.
 */
let server: Server;
let origin = '';
let png: Buffer;
beforeAll(async () => {
  png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366ff' } }).png().toBuffer();
  server = createServer((req, res) => {
    if (req.url?.startsWith('/ok')) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      res.end(png);
    } else {
      res.writeHead(404);
      res.end('no');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((r) => server.close(() => r())));

const { t, orgs } = useTestApp({ env: { ALLOW_PRIVATE_TARGETS: 'true', IMPORT_BACKGROUND_ROWS: '150' } }, 'Acme', 'Beta');
const defaults = { defaultSettings: { who_can_reply_post: 'everyone' } };
let x1 = '';
let x2 = '';
beforeAll(async () => {
  x1 = (await createChannel(t, orgs.acme, 'x', { name: 'X one', ...defaults })).id;
  x2 = (await createChannel(t, orgs.acme, 'x', { name: 'X two', ...defaults })).id;
  await createChannel(t, orgs.beta, 'x', { name: 'X one', ...defaults });
  await createChannel(t, orgs.beta, 'x', { name: 'X two', ...defaults });
});

const csv = (lines: string[]) => ['channel,date,timezone,text,media,settings,group,position,delay,tags', ...lines].join('\n');
const post = (key: string, body: string, query = '', contentType = 'text/csv') =>
  call(t.app, key, { method: 'POST', url: `/public/v1/imports${query}`, headers: { 'content-type': contentType }, payload: body });
const list = async (key: string) => {
  const r = await call(t.app, key, { method: 'GET', url: '/public/v1/posts?startDate=2030-01-01T00:00:00Z&endDate=2030-12-31T00:00:00Z' });
  expect(r.statusCode).toBe(200);
  return r.json<{ posts: { id: string; content: string; publishDate: string; group: string; settings: Record<string, unknown>; integration: { id: string }; image: { path: string }[]; thread: { content: string; delay: number }[]; tags: unknown[] }[] }>().posts;
};

describe('POST /imports', () => {
  it('a dry run lists every mistake with its row and column and creates nothing', async () => {
    const long = 'a'.repeat(400);
    const file = csv([
      `${x1},2030-03-01T09:00:00+01:00,,fine one,,,,,,`,
      `${x1},2030-03-32T09:00:00Z,,bad date,,,,,,`,
      `nope,2030-03-02T09:00:00Z,,unknown channel,,,,,,`,
      `X two,2030-03-03T09:00:00Z,,${long},,,,,,`,
      `${x1},2030-03-04T09:00:00Z,,media 404,${origin}/missing.png,,,,,`,
      `${x2},2030-03-05 10:00,Europe/Berlin,bad settings,,"{not json",,,,`,
    ]);
    const r = await post(orgs.acme.apiKey, file, '?dryRun=true');
    expect(r.statusCode, r.body).toBe(200);
    const body = r.json<{ valid: boolean; rows: { row: number; date: string | null; channel: { id: string } | null; text: string }[]; problems: { row: number; column: string; message: string }[] }>();
    expect(body.valid).toBe(false);
    expect(body.problems.map((p) => [p.row, p.column])).toEqual([
      [2, 'date'],
      [3, 'channel'],
      [4, 'text'],
      [5, 'media'],
      [6, 'settings'],
    ]);
    expect(body.problems[3]!.message).toMatch(/404/);
    expect(body.rows[0]).toMatchObject({ row: 1, date: '2030-03-01T08:00:00.000Z', channel: { id: x1 }, text: 'fine one' });
    expect(body.rows[5]).toMatchObject({ date: '2030-03-05T09:00:00.000Z', channel: { id: x2 } });
    expect(body.rows[3]!.text).toHaveLength(80);
    expect(await list(orgs.acme.apiKey)).toEqual([]);

    // Without the flag: 400 naming rows.<row>.<column>, nothing created.
    const real = await post(orgs.acme.apiKey, file);
    const err = expectError(real, 400, 'VALIDATION_FAILED');
    expect(err.fields!.map((f) => f.path)).toEqual(['rows.2.date', 'rows.3.channel', 'rows.4.text', 'rows.5.media', 'rows.6.settings']);
    expect(await list(orgs.acme.apiKey)).toEqual([]);
  });

  it('a row may name a template (issue 31): its text with the row\'s placeholder values; unknown names and missing values are named', async () => {
    const tpl = await call(t.app, orgs.beta.apiKey, {
      method: 'POST',
      url: '/public/v1/templates',
      payload: { name: 'Weekly tip', body: { posts: [{ value: [{ content: 'Tip of the week: {{tip}} (#{{n}})', image: [] }] }] } },
    });
    expect(tpl.statusCode, tpl.body).toBe(201);
    const file = (lines: string[]) => ['channel,date,template,values,text', ...lines].join('\n');
    const bad = await post(orgs.beta.apiKey, file([`X one,2031-05-01T09:00:00Z,Nope,,`, `X one,2031-05-02T09:00:00Z,weekly tip,"{""tip"":""drink water""}",`, `X one,2031-05-03T09:00:00Z,,"{""n"":1}",hi`]), '?dryRun=true');
    expect(bad.statusCode, bad.body).toBe(200);
    const problems = bad.json<{ valid: boolean; problems: { row: number; column: string; message: string }[] }>();
    expect(problems.valid).toBe(false);
    expect(problems.problems).toEqual(
      expect.arrayContaining([
        { row: 1, column: 'template', message: 'No template named "Nope" in your organisation' },
        { row: 2, column: 'values', message: 'Give "n" for the template "Weekly tip"' },
        { row: 3, column: 'values', message: 'Placeholder values need a template column' },
      ]),
    );
    const ok = await post(orgs.beta.apiKey, file([`X one,2031-05-01T09:00:00Z,Weekly tip,"{""tip"":""drink water"",""n"":3}",`, `X two,2031-05-02T09:00:00Z,weekly TIP,"{""tip"":""sleep"",""n"":4}",Own text wins`]));
    expect(ok.statusCode, ok.body).toBe(201);
    const listed = await call(t.app, orgs.beta.apiKey, { method: 'GET', url: '/public/v1/posts?startDate=2031-05-01T00:00:00Z&endDate=2031-05-31T00:00:00Z' });
    const made = listed.json<{ posts: { content: string }[] }>().posts;
    expect(made.map((p) => p.content).sort()).toEqual(['Own text wins', 'Tip of the week: drink water (#3)']);
  });

  it('settings a platform refuses are named on their row', async () => {
    const r = await post(orgs.acme.apiKey, csv([`${x1},2030-03-01T09:00:00Z,,hi,,"{""who_can_reply_post"":""nobody""}",,,,`]), '?dryRun=true');
    expect(r.json<{ problems: unknown[] }>().problems).toEqual([{ row: 1, column: 'settings', message: expect.any(String) }]);
  });

  it('one bad row creates nothing; the corrected file imports atomically, with threads, groups and media', async () => {
    const good = [
      `${x1},2030-04-01T09:00:00Z,,group post on one,${origin}/ok/a.png,,g1,0,0,launch|spring`,
      `X two,2030-04-01T09:00:00Z,,group post on two,,"{""who_can_reply_post"":""following""}",g1,0,0,launch|spring`,
      `${x1},2030-04-01T09:00:00Z,,reply two,,,g1,2,5,`,
      `${x1},2030-04-01T09:00:00Z,,reply one,,,g1,1,3,`,
      `${x2},2030-04-02T09:00:00+02:00,,single,,,,,,`,
    ];
    const bad = await post(orgs.acme.apiKey, csv([...good, `${x2},2030-04-03T09:00:00Z,,${'b'.repeat(300)},,,,,,`]));
    expect(expectError(bad, 400, 'VALIDATION_FAILED').fields).toEqual([{ path: 'rows.6.text', message: expect.any(String) }]);
    expect(await list(orgs.acme.apiKey)).toEqual([]);

    const r = await post(orgs.acme.apiKey, csv(good));
    expect(r.statusCode, r.body).toBe(201);
    expect(r.json()).toMatchObject({ status: 'completed', rows: 5, created: { groups: 2, posts: 3 } });
    const posts = await list(orgs.acme.apiKey);
    expect(posts).toHaveLength(3);
    const one = posts.find((p) => p.content === 'group post on one')!;
    const two = posts.find((p) => p.content === 'group post on two')!;
    expect(one.group).toBe(two.group);
    expect(one.thread.map((i) => [i.content, i.delay])).toEqual([
      ['reply one', 3],
      ['reply two', 5],
    ]);
    expect(one.image).toHaveLength(1);
    expect(two.settings).toMatchObject({ who_can_reply_post: 'following' });
    expect(posts.find((p) => p.content === 'single')!.publishDate).toBe('2030-04-02T07:00:00.000Z');
    const events = (await eventsOf(t, orgs.acme.id)).filter((e) => e.type === 'import.completed');
    expect(events).toEqual([{ type: 'import.completed', payload: expect.objectContaining({ created: { groups: 2, posts: 3 }, import: expect.objectContaining({ id: r.json<{ id: string }>().id, format: 'csv', rows: 5 }) }) }]);
    const got = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/imports/${r.json<{ id: string }>().id}` });
    expect(got.json()).toMatchObject({ status: 'completed', progress: { done: 5, total: 5 } });
    expectError(await call(t.app, orgs.beta.apiKey, { method: 'GET', url: `/public/v1/imports/${r.json<{ id: string }>().id}` }), 404, 'NOT_FOUND');
    expectError(await call(t.app, orgs.beta.apiKey, { method: 'GET', url: '/public/v1/imports/not-a-uuid' }), 404, 'NOT_FOUND');
  });

  it('export → import round-trips after deleting (CSV and JSON): text, dates, media, settings, threads, groups', async () => {
    const shape = (ps: Awaited<ReturnType<typeof list>>) =>
      ps
        .map((p) => ({ channel: p.integration.id, content: p.content, date: p.publishDate, settings: p.settings, media: p.image.map((m) => m.path), thread: p.thread.map((i) => [i.content, i.delay]), tags: p.tags }))
        .sort((a, b) => a.content.localeCompare(b.content));
    const before = await list(orgs.acme.apiKey);
    const beforeGroups = new Set(before.map((p) => p.group)).size;
    for (const format of ['csv', 'json'] as const) {
      const exported = await call(t.app, orgs.acme.apiKey, { method: 'GET', url: `/public/v1/exports/posts?startDate=2030-01-01T00:00:00Z&endDate=2030-12-31T00:00:00Z&format=${format}` });
      expect(exported.statusCode, exported.body).toBe(200);
      for (const p of await list(orgs.acme.apiKey)) expect((await call(t.app, orgs.acme.apiKey, { method: 'DELETE', url: `/public/v1/posts/${p.id}` })).statusCode).toBe(200);
      expect(await list(orgs.acme.apiKey)).toEqual([]);
      const r = await post(orgs.acme.apiKey, exported.body, '', format === 'csv' ? 'text/csv' : 'application/json');
      expect(r.statusCode, r.body).toBe(201);
      const after = await list(orgs.acme.apiKey);
      expect(shape(after)).toEqual(shape(before));
      expect(new Set(after.map((p) => p.group)).size).toBe(beforeGroups);
    }
  });

  it('takes JSON arrays, NDJSON and multipart uploads', async () => {
    const rows = [{ channel: 'X one', date: '2030-06-01T09:00:00Z', text: 'json row', settings: { who_can_reply_post: 'everyone' } }];
    const asJson = await call(t.app, orgs.beta.apiKey, { method: 'POST', url: '/public/v1/imports?dryRun=true', payload: rows });
    expect(asJson.json()).toMatchObject({ valid: true, rows: [{ row: 1, text: 'json row' }] });
    const nd = await post(orgs.beta.apiKey, rows.map((r) => JSON.stringify(r)).join('\n'), '?dryRun=true', 'application/x-ndjson');
    expect(nd.json()).toMatchObject({ valid: true });
    const boundary = 'XyZ';
    const multipart = [`--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="posts.csv"', 'Content-Type: text/csv', '', csv([`X two,2030-06-02T09:00:00Z,,from multipart,,,,,,`]), `--${boundary}--`, ''].join('\r\n');
    const mp = await post(orgs.beta.apiKey, multipart, '', `multipart/form-data; boundary=${boundary}`);
    expect(mp.statusCode, mp.body).toBe(201);
    expect((await list(orgs.beta.apiKey)).map((p) => p.content)).toEqual(['from multipart']);
    expectError(await post(orgs.beta.apiKey, '{"a":', '', 'application/x-ndjson'), 400, 'VALIDATION_FAILED');
    expectError(await call(t.app, orgs.beta.apiKey, { method: 'POST', url: '/public/v1/imports', payload: { not: 'an array' } }), 400, 'VALIDATION_FAILED');
  });

  it('a large file goes through a background import with progress', async () => {
    const lines: string[] = [];
    for (let i = 0; i < 101; i++) {
      const g = `big${i}`;
      lines.push(`X one,2030-08-01T09:00:00Z,,big ${i},,,${g},0,,`, `X two,2030-08-01T09:00:00Z,,big ${i},,,${g},0,,`);
    }
    const r = await post(orgs.beta.apiKey, csv(lines));
    expect(r.statusCode, r.body).toBe(202);
    const job = r.json<{ id: string; progress: { total: number } }>();
    expect(job.progress.total).toBe(202);
    await t.deps.services.imports.drain();
    const done = await waitFor(async () => {
      const g = (await call(t.app, orgs.beta.apiKey, { method: 'GET', url: `/public/v1/imports/${job.id}` })).json<{ status: string }>();
      return g.status === 'completed' || g.status === 'failed' ? g : undefined;
    });
    expect(done).toMatchObject({ status: 'completed', progress: { done: 202, total: 202 }, created: { groups: 101, posts: 202 } });
  });

  it('an import left unfinished by a stopped process is taken over once, its rows created once', async () => {
    // What a process killed during a background import leaves: the row pending with its rows kept,
    // its heartbeat 10 minutes old (and nothing of it written: its posts are one transaction).
    const source = [0, 1, 2].map((i) => ({ channel: 'X one', date: '2030-09-01T09:00:00Z', text: `orphan ${i}`, group: `orphan${i}` }));
    const old = new Date(Date.now() - 10 * 60_000).toISOString();
    const [orphan] = (
      await t.deps.database.sql.executeSql(
        `INSERT INTO imports (organization_id, status, format, total_rows, source, created_at, updated_at) VALUES ($1, 'running', 'json', 3, $2::jsonb, $3, $3) RETURNING id`,
        [orgs.beta.id, JSON.stringify(source), old],
      )
    ).rows as { id: string }[];
    // Two workers' recovery tasks at once: one claims it, the other finds nothing to do.
    const resumed = await Promise.all([t.deps.services.imports.resumeStale(() => undefined), t.deps.services.imports.resumeStale(() => undefined)]);
    expect(resumed.sort()).toEqual([0, 1]);
    const g = (await call(t.app, orgs.beta.apiKey, { method: 'GET', url: `/public/v1/imports/${orphan!.id}` })).json<{ status: string }>();
    expect(g).toMatchObject({ status: 'completed', progress: { done: 3, total: 3 }, created: { groups: 3, posts: 3 } });
    const texts = (await list(orgs.beta.apiKey)).map((p) => p.content).filter((c) => c.startsWith('orphan'));
    expect(texts.sort()).toEqual(['orphan 0', 'orphan 1', 'orphan 2']);
    // Finished: a later run takes nothing over, and the kept rows are gone.
    expect(await t.deps.services.imports.resumeStale(() => undefined)).toBe(0);
    const kept = (await t.deps.database.sql.executeSql(`SELECT source FROM imports WHERE id = $1`, [orphan!.id])).rows as { source: unknown }[];
    expect(kept[0]!.source).toBeNull();
  });
});
