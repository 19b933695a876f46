import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The common part of every platform simulator: a Fastify app with a request log and an
 * error-injection queue. Each platform's simulator adds its real API's routes and state, and maps
 * the generic failure kinds to that platform's own error shapes.
 *
 * Tests run a simulator on a loopback port and point the adapters at it (PLATFORM_ORIGINS). The
 * sandbox (`platforms/sandbox/`) runs the same simulators in-process, never listening: its client
 * answers every request by `inject` (see `SimulatorMode`).
 */
export type InjectedKind = 'auth_expired' | 'revoked' | 'rate_limited' | 'server_error' | 'rejected' | 'error_in_200';

export interface Injection {
  /** only requests whose path matches this */
  path?: RegExp;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** how many matching requests get it (default 1) */
  times?: number;
}

export interface SimulatorRequest {
  /** Date.now() when the request arrived */
  at: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/** What a simulator received for one media upload: the sha256 and length of the exact bytes, and their declared type. */
export interface ReceivedMedia {
  sha256: string;
  size: number;
  mimeType: string;
}

export interface UploadedFile extends ReceivedMedia {
  field: string;
  filename: string;
}

/** What a record of a published post must show, for the platform contract tests (`test/platform-contract.ts`). */
export interface PublishedRecord {
  text: string;
  replyTo?: string;
  mediaSha256: string[];
}

/**
 * `listen` (tests): on a loopback port, `origin` is its address. `in-process` (the sandbox): no
 * socket at all, `origin` is `IN_PROCESS_ORIGIN` and requests come through `app.inject`.
 */
export type SimulatorMode = 'listen' | 'in-process';

export const IN_PROCESS_ORIGIN = 'http://in-process.invalid';

const modes = new AsyncLocalStorage<SimulatorMode>();

/**
 * Runs `start` with every simulator it starts in `mode` (a simulator's `start…Simulator` takes no
 * mode of its own: it is asked here, once, by the sandbox that starts it).
 */
export function withSimulatorMode<T>(mode: SimulatorMode, start: () => Promise<T>): Promise<T> {
  return modes.run(mode, start);
}

/**
 * The mode of the simulator being started: call it synchronously at the top of a `start…Simulator`
 * (before any await) and keep the answer for the simulator's lifetime.
 */
export function currentSimulatorMode(): SimulatorMode {
  return modes.getStore() ?? 'listen';
}

/**
 * Downloads a medium a platform pulls by URL. A URL whose origin is in `mediaOrigins` (a public
 * origin → where it is really served) is fetched there. Any other URL is fetched as given in
 * `listen` mode (tests), but never in `in-process` mode: the sandbox runs inside the service and may
 * only reach the service itself, never an outside host a user could name. It rejects, so the
 * simulator's own download-failure handling answers as the platform does.
 */
export async function mediaFetch(
  mode: SimulatorMode,
  mediaOrigins: Record<string, string> | Map<string, string> | undefined,
  url: string,
  init?: RequestInit,
): Promise<Response> {
  const u = new URL(url);
  const mapped = mediaOrigins instanceof Map ? mediaOrigins.get(u.origin) : mediaOrigins && Object.hasOwn(mediaOrigins, u.origin) ? mediaOrigins[u.origin] : undefined;
  if (mapped !== undefined) return fetch(`${mapped}${url.startsWith(u.origin) ? url.slice(u.origin.length) : `${u.pathname}${u.search}`}`, init);
  if (mode === 'in-process') throw new Error(`the sandbox only downloads media from this service: ${u.origin} is not this service`);
  return fetch(url, init);
}

export interface Simulator {
  readonly origin: string;
  readonly app: FastifyInstance;
  readonly log: SimulatorRequest[];
  inject(injection: Injection): void;
  /** every request waits this long before it is handled (benchmarks, in-flight crash tests) */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

/** Parses a multipart request into fields and hashed files (the bytes are not kept). */
export async function readMultipart(req: FastifyRequest): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  const fields: Record<string, string> = {};
  const files: UploadedFile[] = [];
  for await (const part of req.parts()) {
    if (part.type === 'file') {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of part.file) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      files.push({ field: part.fieldname, filename: part.filename, mimeType: part.mimetype, size, sha256: hash.digest('hex') });
    } else {
      fields[part.fieldname] = String(part.value);
    }
  }
  return { fields, files };
}

export async function startSimulator(register: (app: FastifyInstance) => void | Promise<void>): Promise<Simulator> {
  const mode = currentSimulatorMode();
  const app = Fastify({ logger: false, bodyLimit: 200 * 1024 * 1024 });
  await app.register(multipart, { limits: { fileSize: 2 * 1024 * 1024 * 1024 } });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const log: SimulatorRequest[] = [];
  const injections: Injection[] = [];
  let latencyMs = 0;
  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    log.push({ at: Date.now(), method: req.method, path: req.url, headers: req.headers, body: req.isMultipart() ? '(multipart)' : req.body });
    // An injection is used up on arrival (a second request during the latency does not get it too).
    const i = injections.findIndex((x) => !x.path || x.path.test(req.url));
    const inj = i === -1 ? undefined : injections[i]!;
    if (inj) {
      inj.times = (inj.times ?? 1) - 1;
      if (inj.times <= 0) injections.splice(i, 1);
    }
    // Logged on arrival, handled after the latency: a client that dies meanwhile has sent its request.
    if (latencyMs > 0) await new Promise((r) => setTimeout(r, latencyMs));
    if (!inj) return;
    // A multipart body is drained (each file's stream too: an unread file stalls the parser).
    if (req.isMultipart()) {
      for await (const part of req.parts()) {
        if (part.type === 'file') for await (const _ of part.file) void _;
      }
    }
    return reply.status(inj.status).headers(inj.headers ?? {}).send(inj.body);
  });
  await register(app);
  const origin = mode === 'listen' ? await app.listen({ port: 0, host: '127.0.0.1' }) : (await app.ready(), IN_PROCESS_ORIGIN);
  return {
    origin,
    app,
    log,
    inject: (injection) => injections.push(injection),
    setLatency: (ms) => {
      latencyMs = ms;
    },
    close: () => app.close(),
  };
}
