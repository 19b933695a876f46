import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import sharp from 'sharp';
import { expect } from 'vitest';
import { integrations } from '../src/db/schema/index.js';
import type { ManualClock } from '../src/lib/clock.js';
import type { PlatformIdentifier } from '../src/platforms/platform.js';
import { realtimeManualClock, releaseDueJobs, waitFor } from './factories.js';
import { buildTestApp, call, expectError, type BuildTestAppOptions, type TestApp, type TestOrg } from './helpers.js';
import { uploadMedia } from './media.js';

/**
 * The parts every platform's end-to-end test (`src/platforms/<id>/<id>.api.test.ts`) shares: a
 * real app with its worker on a manual clock that starts at real time (pg-boss compares start
 * times with the database's clock), one organisation, and the user's steps through the HTTP API
 * — connecting (a credentials form, or OAuth through the simulator's page and the callback),
 * tools, uploads, posts made to publish now and waited for, figures. `platformApi(id)` binds
 * them to one platform, so a post's settings get its `__type` and connecting goes to its routes.
 */

export const PUBLIC_URL = 'https://tidings.example';

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Where the platform sends the user back to, for a service at PUBLIC_URL. */
export const callbackUrl = (identifier: PlatformIdentifier) => `${PUBLIC_URL}/integrations/social/${identifier}/callback`;

/** A picture whose pixels differ for every seed (below 256). */
export async function picture(seed: number, opts: { width?: number; height?: number; format?: 'png' | 'jpeg' } = {}): Promise<Buffer> {
  const { width = 40, height = 30, format = 'png' } = opts;
  const raw = Buffer.alloc(width * height * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 7 + seed * 31) & 255;
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}

export interface PostItemView {
  id: string;
  state: 'DRAFT' | 'QUEUE' | 'PUBLISHED' | 'ERROR';
  releaseId: string | null;
  releaseURL: string | null;
  error: string | null;
}

/** `GET /posts/{id}`, the parts these tests read. */
export interface PostView extends PostItemView {
  nextAttemptAt: string | null;
  thread: PostItemView[];
}

/** A channel as `GET /integrations` lists it. */
export interface ListedChannel {
  id: string;
  identifier: string;
  name: string;
  profile: string | null;
  picture: string | null;
  refreshNeeded: boolean;
}

export interface Uploaded {
  id: string;
  path: string;
  sha256: string;
}

export interface PostItemInput {
  content: string;
  image?: { id: string; path: string; alt?: string }[];
}

/** One series of `GET /analytics/…`. */
export interface FigureSeries {
  label: string;
  data: { date: string; total: number | string }[];
}

/** A simulator of a platform whose access tokens expire and are refreshed. */
export interface TokenSimulator {
  refreshCount(): number;
  expireAccessTokens(): void;
}

export interface StoredTokens {
  accessToken: string;
  refreshToken?: string | null;
}

export interface SettleOptions {
  /** wait for the post's thread items to end too */
  thread?: boolean;
  /** a PUBLISHED post has ended only once this holds as well (what the platform shows after the first item) */
  until?: (post: PostView) => boolean;
  /** how the app's time moves between looks (default `toNextAttempt`: to the post's next attempt, when later) */
  advance?: (post: PostView) => void;
  timeoutMs?: number;
}

const ended = (i: PostItemView) => i.state === 'PUBLISHED' || i.state === 'ERROR';

export function platformApi(identifier: PlatformIdentifier) {
  let started: { t: TestApp; clock: ManualClock; org: TestOrg; dataDir: string } | undefined;
  const world = () => {
    if (!started) throw new Error(`platformApi(${identifier}): start() it first`);
    return started;
  };

  const api = {
    identifier,
    get t() {
      return world().t;
    },
    get clock() {
      return world().clock;
    },
    get org() {
      return world().org;
    },

    /**
     * Builds the app (worker started; DATA_DIR a fresh folder) with `env` (PLATFORM_ORIGINS, the
     * platform's app credentials, PUBLIC_URL…) and creates the organisation. `clock` when the
     * simulator needs the app's time before the app exists.
     */
    async start(opts: { env: Record<string, string>; clock?: ManualClock; orgName?: string; app?: Pick<BuildTestAppOptions, 'onSandboxRequest' | 'logger'> }) {
      const dataDir = await mkdtemp(join(tmpdir(), `tidings-${identifier}-api-`));
      const clock = opts.clock ?? realtimeManualClock();
      try {
        const t = await buildTestApp({ ...opts.app, clock, startWorker: true, env: { DATA_DIR: dataDir, ...opts.env } });
        started = { t, clock, dataDir, org: await t.createOrg(opts.orgName ?? 'Acme') };
      } catch (e) {
        await rm(dataDir, { recursive: true, force: true });
        throw e;
      }
    },

    /** The app listens on loopback (for simulators that fetch PUBLIC_URL's media as the platform would): its origin. */
    listen(): Promise<string> {
      return world().t.app.listen({ port: 0, host: '127.0.0.1' });
    },

    async close() {
      if (!started) return;
      const { t, dataDir } = started;
      started = undefined;
      try {
        await t.close();
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },

    /** `inject` with the organisation's API key. */
    call(opts: InjectOptions): Promise<LightMyRequestResponse> {
      return call(world().t.app, world().org.apiKey, opts);
    },

    // ── connecting ──────────────────────────────────────────────────────────────────────────

    /** `POST /social/{identifier}` with a credentials form. */
    connectForm(payload: Record<string, unknown>) {
      return api.call({ method: 'POST', url: `/public/v1/social/${identifier}`, payload });
    },

    /** A credentials form the platform (or the form's schema) refuses: 400 naming fields, and no channel stored. The fields. */
    async expectConnectRefused(payload: Record<string, unknown>) {
      const err = expectError(await api.connectForm(payload), 400, 'VALIDATION_FAILED');
      expect(await api.storedChannels()).toHaveLength(0);
      return err.fields!;
    },

    /** The organisation's channel rows, as stored. */
    storedChannels() {
      return world().t.deps.database.db.select().from(integrations).where(eq(integrations.organizationId, world().org.id));
    },

    /** The stored row of a channel of the organisation. */
    async channelRow(channelId: string) {
      const [row] = await world().t.deps.database.db.select().from(integrations).where(and(eq(integrations.id, channelId), eq(integrations.organizationId, world().org.id)));
      expect(row, `channel ${channelId}`).toBeDefined();
      return row!;
    },

    /** A channel's credentials, opened from their sealed form. */
    async openCredentials<T = Record<string, unknown>>(channelId: string): Promise<T> {
      const row = await api.channelRow(channelId);
      expect(row.credentials).not.toBeNull();
      return JSON.parse(world().t.deps.secretBox.open(row.credentials!)) as T;
    },

    /**
     * A transparent refresh: expires the platform's access tokens, does `act` (which must go
     * through), and checks that the platform saw one refresh and a new access token is stored.
     * The stored tokens before and after, for what the platform does with the refresh token.
     */
    async refreshOnTheWay(channelId: string, sim: TokenSimulator, act: () => Promise<unknown>): Promise<{ before: StoredTokens; after: StoredTokens }> {
      const before = await api.openCredentials<StoredTokens>(channelId);
      const refreshes = sim.refreshCount();
      sim.expireAccessTokens();
      await act();
      expect(sim.refreshCount()).toBe(refreshes + 1);
      const after = await api.openCredentials<StoredTokens>(channelId);
      expect(after.accessToken).not.toBe(before.accessToken);
      return { before, after };
    },

    /** `GET /social/{identifier}`: 200 with the authorisation (or login) URL. */
    async beginConnect(): Promise<URL> {
      const begun = await api.call({ method: 'GET', url: `/public/v1/social/${identifier}` });
      expect(begun.statusCode, begun.body).toBe(200);
      return new URL(begun.json<{ url: string }>().url);
    },

    /** The user approves at the simulator's page: a redirect to this platform's callback, its URL. */
    async authorise(url: URL): Promise<URL> {
      const approved = await fetch(url, { redirect: 'manual' });
      expect(approved.status, await approved.clone().text()).toBe(302);
      const back = new URL(approved.headers.get('location')!);
      expect(`${back.origin}${back.pathname}`).toBe(callbackUrl(identifier));
      return back;
    },

    /** The browser arrives at the callback: the page the app answers. */
    callback(back: URL) {
      return world().t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
    },

    /** The whole OAuth round trip, which must succeed: the authorisation URL, the callback URL and page, the channel. */
    async connectThroughOAuth() {
      const url = await api.beginConnect();
      const back = await api.authorise(url);
      const page = await api.callback(back);
      expect(page.statusCode, page.body).toBe(200);
      return { url, back, page, channel: await api.connectedChannel() };
    },

    /** `GET /integrations`. */
    async listChannels(): Promise<ListedChannel[]> {
      const res = await api.call({ method: 'GET', url: '/public/v1/integrations' });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<ListedChannel[]>();
    },

    /** The organisation's channel of this platform, as listed. */
    async connectedChannel(): Promise<ListedChannel> {
      const channel = (await api.listChannels()).find((i) => i.identifier === identifier);
      expect(channel, `${identifier} channel`).toBeDefined();
      return channel!;
    },

    // ── tools, media, figures ───────────────────────────────────────────────────────────────

    /** `POST /integration-trigger/{id}`. */
    tool(channelId: string, methodName: string, data: unknown = {}) {
      return api.call({ method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName, data } });
    },

    /** A tool that must answer 200 with `{ output }`: the output. */
    async toolOutput<T = unknown>(channelId: string, methodName: string, data: unknown = {}): Promise<T> {
      const res = await api.tool(channelId, methodName, data);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json<{ output: T }>();
      expect(Object.keys(body)).toEqual(['output']);
      return body.output;
    },

    /** `POST /upload` of a file that must be accepted whole. */
    async upload(data: Buffer, filename: string): Promise<Uploaded> {
      const item = await uploadMedia(world().t, world().org, data, filename);
      expect(item.size).toBe(data.length);
      return { id: item.id, path: item.path, sha256: sha(data) };
    },

    /** `GET /analytics/{channelId}?date=7` or, with `post/{postId}`, a post's: 200, the series. */
    async figures(of: string): Promise<FigureSeries[]> {
      const res = await api.call({ method: 'GET', url: `/public/v1/analytics/${of}?date=7` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<FigureSeries[]>();
    },

    // ── posts ───────────────────────────────────────────────────────────────────────────────

    /** `POST /posts`: one post (a thread when several items) on the channel, to publish now. */
    createPost(channelId: string, settings: Record<string, unknown>, items: PostItemInput[]) {
      return api.call({
        method: 'POST',
        url: '/public/v1/posts',
        payload: {
          type: 'now',
          shortLink: false,
          tags: [],
          posts: [{ integration: { id: channelId }, settings: { __type: identifier, ...settings }, value: items.map((i) => ({ content: i.content, image: i.image ?? [] })) }],
        },
      });
    },

    /** The id of the post a `POST /posts` made (201). */
    postIdOf(res: LightMyRequestResponse): string {
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ postId: string }[]>()[0]!.postId;
    },

    async getPost(id: string): Promise<PostView> {
      const res = await api.call({ method: 'GET', url: `/public/v1/posts/${id}` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<PostView>();
    },

    /** Moves the app's clock to the post's next attempt when that is later; whether it moved. */
    toNextAttempt(post: PostView): boolean {
      const clock = world().clock;
      const next = post.nextAttemptAt ? Date.parse(post.nextAttemptAt) : Number.NaN;
      if (!(next > clock.now())) return false;
      clock.advance(next - clock.now());
      return true;
    },

    /** Lets the publish jobs that are due on the app's clock run now. */
    releaseDueJobs() {
      return releaseDueJobs(world().t, world().clock);
    },

    /**
     * Waits until the post is PUBLISHED or ERROR (see SettleOptions), bringing each next attempt
     * forward between looks: the clock moves (`advance`) and the due jobs are released.
     */
    async settle(id: string, opts: SettleOptions = {}): Promise<PostView> {
      const advance = opts.advance ?? ((p: PostView) => void api.toNextAttempt(p));
      let last: PostView | undefined;
      try {
        return await waitFor(
          async () => {
            last = await api.getPost(id);
            if (last.state === 'ERROR' || (last.state === 'PUBLISHED' && (!opts.thread || last.thread.every(ended)) && (opts.until?.(last) ?? true))) return last;
            advance(last);
            await api.releaseDueJobs();
            await new Promise((r) => setTimeout(r, 50));
            return undefined;
          },
          opts.timeoutMs ?? 45_000,
          `post ${id} to end`,
        );
      } catch (e) {
        throw new Error(`${(e as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: e });
      }
    },

    /** Creates the post (201) and waits for it: PUBLISHED without an error. */
    async publish(channelId: string, settings: Record<string, unknown>, items: PostItemInput[], opts: SettleOptions = {}): Promise<PostView> {
      const post = await api.settle(api.postIdOf(await api.createPost(channelId, settings, items)), opts);
      expect({ state: post.state, error: post.error }).toEqual({ state: 'PUBLISHED', error: null });
      return post;
    },

    /** Polls `check` until it holds, letting due jobs run between looks (a thread item's, a retry's). */
    eventually<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs = 30_000): Promise<T> {
      return waitFor(
        async () => {
          const v = await check();
          if (v) return v;
          await api.releaseDueJobs();
          return undefined;
        },
        timeoutMs,
        what,
      );
    },
  };
  return api;
}

export type PlatformApi = ReturnType<typeof platformApi>;
