import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp, type BuildAppOptions } from '../src/app.js';
import { API_PREFIX } from '../src/http/openapi.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type AppDeps, type CreateDepsOptions } from '../src/deps.js';
import { createManualClock, systemClock, type Clock, type ManualClock } from '../src/lib/clock.js';
import { openTestDatabase, type TestDatabase } from './test-db.js';

export const TEST_SECRET = 'test-secret-0123456789abcdefghijklmnopqrstuvwxyz';

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  testDb: TestDatabase;
  clock: Clock;
  close(): Promise<void>;
  /** Creates an organisation with an API key, the way the admin CLI does. */
  createOrg(name?: string): Promise<TestOrg>;
}

export interface TestOrg {
  id: string;
  name: string;
  apiKey: string;
}

export interface BuildTestAppOptions {
  /** Environment overrides (strings, as in process.env). */
  env?: Record<string, string>;
  clock?: Clock;
  extraRoutes?: FastifyPluginAsyncZod;
  /** Start the worker side (heartbeat) like `serve --role all` does. */
  startWorker?: boolean;
  /** `upload-from-url` resolver and address policy overrides. */
  remoteFetch?: CreateDepsOptions['remoteFetch'];
  /** The resolver webhook URLs are checked with. */
  webhookResolve?: CreateDepsOptions['webhookResolve'];
  /** Where the service's warnings go (silent by default). */
  logger?: CreateDepsOptions['logger'];
  /** Sees every route as it is registered. */
  onRoute?: BuildAppOptions['onRoute'];
  /** Serve a built calendar app (default none, so tests do not depend on `npm run build:web`). */
  webApp?: BuildAppOptions['webApp'];
  /** Sees the origin of every request a sandbox channel sends. */
  onSandboxRequest?: CreateDepsOptions['onSandboxRequest'];
  /** The process role (`serve --role`); default `all`. */
  role?: CreateDepsOptions['role'];
}

/** A fresh app on its own fresh database (PGlite or PostgreSQL per TEST_DB), driven with `inject`. */
export async function buildTestApp(opts: BuildTestAppOptions = {}): Promise<TestApp> {
  const testDb = await openTestDatabase(inject('testDb'));
  const clock = opts.clock ?? systemClock;
  const config = loadConfig({
    CREDENTIALS_SECRET: TEST_SECRET,
    API_RATE_LIMIT: '100000',
    DATA_DIR: '/nonexistent-test-data-dir',
    ...opts.env,
  });
  const deps = await createDeps(config, { role: opts.role, database: testDb.database, clock, remoteFetch: opts.remoteFetch, webhookResolve: opts.webhookResolve, logger: opts.logger, onSandboxRequest: opts.onSandboxRequest });
  const app = await buildApp(deps, { extraRoutes: opts.extraRoutes, webApp: opts.webApp ?? false, onRoute: opts.onRoute });
  const undocumented = recordUndocumentedStatuses(app);
  if (opts.startWorker) await deps.startWorker();
  await app.ready();
  return {
    app,
    deps,
    testDb,
    clock,
    async close() {
      await app.close();
      await deps.close();
      await testDb.drop();
      // Generated clients are written from the document: a status it does not list is a bug.
      expect([...undocumented], 'statuses answered but not listed for the route in the OpenAPI document').toEqual([]);
    },
    async createOrg(name = 'Org') {
      const r = await deps.services.organizations.createOrganization(name);
      return { id: r.organization.id, name: r.organization.name, apiKey: r.apiKey };
    },
  };
}

/**
 * Watches every answer of a public API route: a status its response schemas (from which the
 * OpenAPI document is generated) do not list is recorded, and `close()` fails the test file. So
 * every status any test provokes must be documented.
 */
function recordUndocumentedStatuses(app: FastifyInstance): Set<string> {
  const seen = new Set<string>();
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions;
    const documented = route.schema?.response as Record<string, unknown> | undefined;
    if (!route.url?.startsWith(`${API_PREFIX}/`) || route.schema?.hide || !documented) return;
    if (!(String(reply.statusCode) in documented)) seen.add(`${req.method} ${route.url} answered ${reply.statusCode}`);
  });
  return seen;
}

export function manualClock(): ManualClock {
  return createManualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
}

/** `inject` with the organisation's API key in the raw Authorization header. */
export function call(app: FastifyInstance, key: string | undefined, opts: InjectOptions): Promise<LightMyRequestResponse> {
  return app.inject({ ...opts, headers: { ...(key === undefined ? {} : { authorization: key }), ...opts.headers } });
}

/** Asserts the API.md §3 error shape and returns the body. */
export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  const body = res.json<Record<string, unknown>>();
  expect({ status: res.statusCode, code: body.code }).toEqual({ status, code });
  expect(body.statusCode).toBe(status);
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(body.requestId).toBe(res.headers['x-request-id']);
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.(ts|js):\d+|SELECT |INSERT |node_modules/);
  return body as { message: string; fields?: { path: string; message: string }[] } & Record<string, unknown>;
}

/**
 * Organisation isolation (API.md §3): the route answers its owner with a success, and answers any
 * other organisation 404 NOT_FOUND, exactly as for an id that does not exist. Later issues apply
 * this to every route that takes an id.
 */
export async function expectIsolated(
  app: FastifyInstance,
  route: { method: InjectOptions['method']; url: string; payload?: InjectOptions['payload'] },
  owner: { apiKey: string },
  other: { apiKey: string },
  opts: { ownerCheck?: boolean } = {},
) {
  const asOther = await call(app, other.apiKey, { method: route.method, url: route.url, payload: route.payload });
  expectError(asOther, 404, 'NOT_FOUND');
  if (opts.ownerCheck !== false) {
    const asOwner = await call(app, owner.apiKey, { method: route.method, url: route.url, payload: route.payload });
    expect(asOwner.statusCode, `owner ${route.method} ${route.url}: ${asOwner.body}`).toBeLessThan(300);
  }
  return asOther;
}

/**
 * A stand-in for a value a `beforeAll` hook makes: usable in the test bodies (every property read
 * goes to the value), an error if read before the hook ran.
 */
function standIn<T extends object>(what: string): { value: T; set(v: T): void } {
  let target: T | undefined;
  const value = new Proxy({} as T, {
    get(_, prop) {
      if (!target) throw new Error(`${what} is used before its beforeAll hook ran`);
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
    has: (_, prop) => !!target && Reflect.has(target, prop),
    ownKeys: () => (target ? Reflect.ownKeys(target) : []),
    getOwnPropertyDescriptor: (_, prop) => (target ? Reflect.getOwnPropertyDescriptor(target, prop) : undefined),
  });
  return { value, set: (v) => (target = v) };
}

/**
 * The usual start of an API test file: registers a `beforeAll` that builds the app (options may be
 * a function, read when the hook runs: a simulator's origin started by an earlier hook) and creates
 * the named organisations, and an `afterAll` that closes it. Returns the app and the organisations
 * by name, ready inside tests and later hooks.
 */
export function useTestApp<N extends string>(
  options: BuildTestAppOptions | (() => BuildTestAppOptions | Promise<BuildTestAppOptions>) = {},
  ...orgNames: N[]
): { t: TestApp; orgs: Record<Lowercase<N>, TestOrg> } {
  const t = standIn<TestApp>('the test app');
  const orgs = Object.fromEntries(orgNames.map((n) => [n.toLowerCase(), standIn<TestOrg>(`organisation ${n}`)])) as Record<string, ReturnType<typeof standIn<TestOrg>>>;
  let built: TestApp | undefined;
  beforeAll(async () => {
    built = await buildTestApp(typeof options === 'function' ? await options() : options);
    t.set(built);
    for (const name of orgNames) orgs[name.toLowerCase()]!.set(await built.createOrg(name));
  });
  afterAll(async () => built?.close());
  return { t: t.value, orgs: Object.fromEntries(Object.entries(orgs).map(([k, v]) => [k, v.value])) as Record<Lowercase<N>, TestOrg> };
}
