import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { integrations } from '../../src/db/schema/index.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from '../factories.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../helpers.js';
import { uploadMedia } from '../media.js';

/**
 * WordPress against the real software (issue 17): Debian's `wordpress` package on MariaDB behind
 * PHP's built-in server on loopback, set up by `scripts/wordpress/setup.sh`, which writes the site's
 * address, user and a fresh application password to a JSON file. Run with `npm run test:wordpress`
 * (setup + this file); without WORDPRESS_REAL_SITE naming that file the tier is skipped.
 *
 * Through the HTTP API of a real app with its worker: connect a channel (a wrong application password
 * answers 400 naming the field, nothing stored), list the categories with the tool, upload a picture,
 * publish a post with it as the featured image and two categories, then read the post back from
 * WordPress's own REST API — title, content, categories, and the featured media's file, byte for byte.
 */

interface Site {
  url: string;
  username: string;
  applicationPassword: string;
  categories: { id: number; name: string }[];
  wordpressVersion: string;
}

const SITE_FILE = process.env.WORDPRESS_REAL_SITE;
const SKIP_REASON = 'real WordPress not set up: run `npm run test:wordpress` (scripts/wordpress/setup.sh, then this file with WORDPRESS_REAL_SITE=<its site.json>)';
const PICTURE = join(import.meta.dirname, '../fixtures/media/photo-48x64.png');
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let site: Site;
let t: TestApp;
let clock: ManualClock;
let org: TestOrg;
let dataDir: string;
let channelId: string;
let categoryIds: number[];

/** GET on WordPress's own REST API as the site's user (context=edit shows the raw fields). */
async function wp<T>(path: string): Promise<T> {
  const res = await fetch(`${site.url}/wp-json/wp/v2/${path}`, {
    headers: { authorization: `Basic ${Buffer.from(`${site.username}:${site.applicationPassword}`).toString('base64')}` },
  });
  const text = await res.text();
  expect(res.status, `GET ${path}: ${text}`).toBe(200);
  return JSON.parse(text) as T;
}

describe('wordpress against a real WordPress site', () => {
  beforeEach((ctx) => {
    if (!SITE_FILE) ctx.skip(SKIP_REASON);
  });

  beforeAll(async () => {
    if (!SITE_FILE) return;
    if (!existsSync(SITE_FILE)) throw new Error(`WORDPRESS_REAL_SITE=${SITE_FILE} does not exist: run scripts/wordpress/setup.sh`);
    site = JSON.parse(await readFile(SITE_FILE, 'utf8')) as Site;
    const up = await fetch(`${site.url}/wp-json/`).catch((e: unknown) => e as Error);
    if (up instanceof Error || !up.ok) throw new Error(`WordPress does not answer at ${site.url}/wp-json/ (${String(up instanceof Error ? up.message : up.status)}): run scripts/wordpress/setup.sh`);
    dataDir = await mkdtemp(join(tmpdir(), 'tidings-wordpress-real-'));
    clock = realtimeManualClock();
    // The site is on loopback, which the outgoing-request guard refuses unless told otherwise.
    t = await buildTestApp({ clock, startWorker: true, env: { DATA_DIR: dataDir, ALLOW_PRIVATE_TARGETS: 'true' } });
    org = await t.createOrg('Acme');
  });

  afterAll(async () => {
    await t?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('a wrong application password answers 400 naming the field and stores nothing', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/social/wordpress',
      payload: { siteUrl: site.url, username: site.username, applicationPassword: 'abcd efgh ijkl mnop qrst uvwx' },
    });
    const body = expectError(res, 400, 'VALIDATION_FAILED');
    expect(body.fields!.map((f) => f.path)).toEqual(['applicationPassword']);
    expect(await t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, org.id))).toHaveLength(0);
  });

  it('connects with the site address, the user and the application password', async () => {
    const res = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/social/wordpress',
      payload: { siteUrl: site.url, username: site.username, applicationPassword: site.applicationPassword },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'wordpress', disabled: false, refreshNeeded: false });
    expect(res.body).not.toContain(site.applicationPassword);
    channelId = res.json<{ id: string }>().id;
  });

  it('the categories tool lists the site’s categories', async () => {
    const res = await call(t.app, org.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'categories', data: {} } });
    expect(res.statusCode, res.body).toBe(200);
    const output = res.json<{ output: { id: number; name: string }[] }>().output;
    // The two setup.sh made, and WordPress's own "Uncategorized".
    for (const c of [...site.categories, { id: 1, name: 'Uncategorized' }]) expect(output).toContainEqual(expect.objectContaining(c));
    categoryIds = site.categories.map((c) => output.find((o) => o.name === c.name)!.id);
  });

  it('publishes a post with a featured image and two categories, read back from WordPress', async () => {
    const bytes = await readFile(PICTURE);
    const media = await uploadMedia(t, org, bytes, 'cover.png');
    const title = `Tidings on real WordPress ${Date.now()}`;
    const categories = categoryIds;
    const created = await call(t.app, org.apiKey, {
      method: 'POST',
      url: '/public/v1/posts',
      payload: {
        type: 'now',
        shortLink: false,
        tags: [],
        posts: [
          {
            integration: { id: channelId },
            settings: { __type: 'wordpress', title, type: 'posts', main_image: { id: media.id, path: media.path }, categories },
            value: [{ content: '<p>Hello from <strong>Tidings</strong>.</p>', image: [] }],
          },
        ],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const postId = created.json<{ postId: string }[]>()[0]!.postId;

    let last: Record<string, unknown> | undefined;
    const post = await waitFor(
      async () => {
        const res = await call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/posts/${postId}` });
        last = res.json<Record<string, unknown>>();
        if (last.state === 'PUBLISHED' || last.state === 'ERROR') return last;
        const next = typeof last.nextAttemptAt === 'string' ? Date.parse(last.nextAttemptAt) : Number.NaN;
        if (next > clock.now()) clock.advance(next - clock.now());
        await releaseDueJobs(t, clock);
        await sleep(50);
        return undefined;
      },
      45_000,
      `post ${postId} to be published (last seen ${JSON.stringify(last)})`,
    );
    expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });

    const wpPost = await wp<{ id: number; link: string; status: string; title: { raw: string }; content: { raw: string }; categories: number[]; featured_media: number }>(
      `posts/${String(post.releaseId)}?context=edit`,
    );
    expect(wpPost.status).toBe('publish');
    expect(wpPost.title.raw).toBe(title);
    expect(wpPost.content.raw).toContain('Hello from <strong>Tidings</strong>.');
    expect([...wpPost.categories].sort()).toEqual([...categories].sort());
    expect(post.releaseURL).toBe(wpPost.link);
    // Published once: the site has one post with this title.
    expect(await wp<unknown[]>(`posts?context=edit&status=any&search=${encodeURIComponent(title)}`)).toHaveLength(1);
    expect(wpPost.featured_media).toBeGreaterThan(0);

    const attachment = await wp<{ source_url: string; mime_type: string; media_type: string }>(`media/${wpPost.featured_media}?context=edit`);
    expect({ media_type: attachment.media_type, mime_type: attachment.mime_type }).toEqual({ media_type: 'image', mime_type: 'image/png' });
    const file = await fetch(attachment.source_url);
    expect(file.status).toBe(200);
    expect(sha(Buffer.from(await file.arrayBuffer()))).toBe(sha(bytes));
  });
});
