import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { startSimulator, type InjectedKind, type Simulator } from '../../../../test/simulators/harness.js';

/**
 * A simulator of KIE.ai's Veo 3 API (map `https://api.kie.ai` to it).
 *
 * Faithful parts: every call wants `Authorization: Bearer <key>` (else HTTP 401 `{ code: 401, msg:
 * "You do not have access permissions" }`); the other refusals come under HTTP 200 with KIE's code
 * in the body: 422 for what fails validation (prompt required; model in `veo3`/`veo3_fast`;
 * aspect ratio in `16:9`/`9:16`/`Auto`, under `aspect_ratio` or the older `aspectRatio`;
 * generationType and its picture counts: first/last frames 1–2, reference 1–3 with veo3_fast
 * only), 402 when the account's credits do not cover the model's price. A task's pictures are
 * FETCHED when it is submitted, as KIE's servers fetch them (no redirects followed), and the
 * sha256 of what arrived is recorded; a picture that cannot be fetched, or is not a picture, fails
 * the task (successFlag 2, errorCode 400). Task ids look like KIE's (`veo_task_…`). A task answers
 * successFlag 0 for a configurable number of status reads, then 1 with `response.resultUrls`
 * pointing at an MP4 this simulator serves (a real one, see `renderSampleMp4`), or 2 with a
 * KIE-shaped `errorMessage`. Credits are taken at submission and given back when a task fails.
 * Assumed: KIE's exact wording for credits and validation messages.
 */

export const KIE_ORIGIN = 'https://api.kie.ai';

const MODELS = ['veo3', 'veo3_fast'];
const RATIOS = ['16:9', '9:16', 'Auto'];
const TYPES = ['TEXT_2_VIDEO', 'FIRST_AND_LAST_FRAMES_2_VIDEO', 'REFERENCE_2_VIDEO'];
const NO_ACCESS = 'You do not have access permissions';
const FETCH_FAILED = 'Failed to fetch the image. Kindly verify any access limits set by you or your service provider.';

export interface Veo3SimulatorOptions {
  /** the API key the account has (default `kie-test-key`) */
  apiKey?: string;
  /** the account's credit balance at start (default 1000) */
  credits?: number;
  /** what a task costs per model (default veo3 250, veo3_fast 60) */
  costs?: Partial<Record<string, number>>;
  /** status reads answering "generating" before a task is done (default 2) */
  pollsUntilDone?: number;
  /** the bytes of the result video (default: `renderSampleMp4()`, rendered once per process) */
  video?: Buffer;
}

/** A picture the simulator fetched for a task. */
export interface FetchedImage {
  url: string;
  ok: boolean;
  sha256?: string;
  size?: number;
  contentType?: string;
}

export interface Veo3TaskRecord {
  taskId: string;
  /** the JSON body as received */
  body: Record<string, unknown>;
  prompt: string;
  model: string;
  aspectRatio: string;
  generationType: string;
  images: FetchedImage[];
  cost: number;
  pollsLeft: number;
  state: 'generating' | 'success' | 'failed';
  errorCode?: number;
  errorMessage?: string;
  createdAt: number;
  completedAt?: number;
}

export interface Veo3Simulator extends Simulator {
  tasks: Map<string, Veo3TaskRecord>;
  /** tasks created (refused submissions are not tasks) */
  submissions(): number;
  credits(): number;
  setCredits(n: number): void;
  /** the next task created fails when it is done, with this KIE message */
  failNextTask(message: string, errorCode?: number): void;
  /** tasks stay "generating" for this many status reads (from now on) */
  setPollsUntilDone(n: number): void;
  /** the URL a task's result is served at */
  resultUrl(taskId: string): string;
  injectKind(kind: InjectedKind): void;
}

const run = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const kieTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '');

/** The kind of picture the bytes are, by their first bytes. */
function pictureType(b: Buffer): string | undefined {
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

/**
 * A real one-second MP4 (H.264 + AAC, faststart) made with the ffmpeg the package installs, the
 * kind of file KIE hands back (vertical 720×1280 unless told otherwise).
 */
export async function renderSampleMp4(size = '720x1280'): Promise<Buffer> {
  const ffmpeg = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  const dir = await mkdtemp(join(tmpdir(), 'veo3-sample-'));
  try {
    const out = join(dir, 'sample.mp4');
    await run(ffmpeg, [
      '-hide_banner', '-loglevel', 'error',
      '-f', 'lavfi', '-i', `testsrc=s=${size}:d=1`,
      '-f', 'lavfi', '-i', 'anullsrc',
      '-shortest', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-movflags', '+faststart',
      out,
    ]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

let sample: Promise<Buffer> | undefined;

export async function startVeo3Simulator(opts: Veo3SimulatorOptions = {}): Promise<Veo3Simulator> {
  const apiKey = opts.apiKey ?? 'kie-test-key';
  const costs: Record<string, number> = { veo3: 250, veo3_fast: 60, ...opts.costs };
  const video = opts.video ?? (await (sample ??= renderSampleMp4()));
  const tasks = new Map<string, Veo3TaskRecord>();
  let balance = opts.credits ?? 1000;
  let pollsUntilDone = opts.pollsUntilDone ?? 2;
  let failNext: { message: string; code: number } | undefined;
  let origin = '';

  const ok = (data: unknown) => ({ code: 200, msg: 'success', data });
  const refuse = (reply: FastifyReply, code: number, msg: string) => reply.status(200).send({ code, msg, data: null });

  function authorized(req: FastifyRequest, reply: FastifyReply): boolean {
    if (req.headers.authorization === `Bearer ${apiKey}`) return true;
    void reply.status(401).send({ code: 401, msg: NO_ACCESS });
    return false;
  }

  /** Fetches a picture as KIE's servers do: one GET, no redirects followed. */
  async function fetchImage(url: string): Promise<FetchedImage> {
    try {
      const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000) });
      if (res.status !== 200) {
        await res.body?.cancel();
        return { url, ok: false };
      }
      const bytes = Buffer.from(await res.arrayBuffer());
      const type = pictureType(bytes);
      return { url, ok: type !== undefined, sha256: sha256(bytes), size: bytes.length, ...(type ? { contentType: type } : {}) };
    } catch {
      return { url, ok: false };
    }
  }

  function view(t: Veo3TaskRecord) {
    const url = `${origin}/results/${t.taskId}.mp4`;
    const done = t.state === 'success';
    return {
      taskId: t.taskId,
      paramJson: JSON.stringify(t.body),
      completeTime: t.completedAt ? kieTime(t.completedAt) : null,
      response: done ? { taskId: t.taskId, resultUrls: [url], originUrls: t.aspectRatio === '16:9' ? null : [url], resolution: '720p' } : null,
      successFlag: t.state === 'generating' ? 0 : done ? 1 : 2,
      errorCode: t.state === 'failed' ? (t.errorCode ?? 501) : null,
      errorMessage: t.state === 'failed' ? (t.errorMessage ?? '') : null,
      createTime: kieTime(t.createdAt),
      fallbackFlag: false,
    };
  }

  const sim = await startSimulator((app) => {
    app.post('/api/v1/veo/generate', async (req: FastifyRequest<{ Body: unknown }>, reply) => {
      if (!authorized(req, reply)) return reply;
      const b = (typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? req.body : {}) as Record<string, unknown>;
      if (typeof b.prompt !== 'string' || b.prompt.trim() === '') return refuse(reply, 422, 'prompt is required');
      const model = b.model === undefined ? 'veo3_fast' : b.model;
      if (typeof model !== 'string' || !MODELS.includes(model)) return refuse(reply, 422, 'The model name you specified is not supported');
      const snake = b.aspect_ratio;
      const camel = b.aspectRatio;
      if (snake !== undefined && camel !== undefined && snake !== camel) return refuse(reply, 422, 'aspect_ratio and aspectRatio disagree');
      const ratio = snake ?? camel ?? '16:9';
      if (typeof ratio !== 'string' || !RATIOS.includes(ratio)) return refuse(reply, 422, `aspect_ratio must be one of ${RATIOS.join(', ')}`);
      const urls = b.imageUrls === undefined ? [] : b.imageUrls;
      if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string')) return refuse(reply, 422, 'imageUrls must be a list of image URLs');
      if (urls.length > 3) return refuse(reply, 422, 'imageUrls supports at most 3 images');
      const type = b.generationType ?? (urls.length === 0 ? 'TEXT_2_VIDEO' : 'FIRST_AND_LAST_FRAMES_2_VIDEO');
      if (typeof type !== 'string' || !TYPES.includes(type)) return refuse(reply, 422, `generationType must be one of ${TYPES.join(', ')}`);
      if (type === 'TEXT_2_VIDEO' && urls.length > 0) return refuse(reply, 422, 'TEXT_2_VIDEO takes no imageUrls');
      if (type === 'FIRST_AND_LAST_FRAMES_2_VIDEO' && (urls.length < 1 || urls.length > 2)) return refuse(reply, 422, 'FIRST_AND_LAST_FRAMES_2_VIDEO requires 1 or 2 images in imageUrls');
      if (type === 'REFERENCE_2_VIDEO' && (urls.length < 1 || urls.length > 3)) return refuse(reply, 422, 'REFERENCE_2_VIDEO requires 1 to 3 images in imageUrls');
      if (type === 'REFERENCE_2_VIDEO' && model !== 'veo3_fast') return refuse(reply, 422, 'REFERENCE_2_VIDEO currently only supports the veo3_fast model');
      const cost = costs[model] ?? 0;
      if (balance < cost) return refuse(reply, 402, 'The current credits are insufficient. Please top up.');
      balance -= cost;
      const images: FetchedImage[] = [];
      for (const url of urls as string[]) images.push(await fetchImage(url));
      const task: Veo3TaskRecord = {
        taskId: `veo_task_${randomBytes(12).toString('hex')}`,
        body: b,
        prompt: b.prompt,
        model,
        aspectRatio: ratio,
        generationType: type,
        images,
        cost,
        pollsLeft: pollsUntilDone,
        state: 'generating',
        createdAt: Date.now(),
      };
      if (images.some((i) => !i.ok)) {
        task.errorCode = 400;
        task.errorMessage = FETCH_FAILED;
      } else if (failNext) {
        task.errorCode = failNext.code;
        task.errorMessage = failNext.message;
        failNext = undefined;
      }
      tasks.set(task.taskId, task);
      return ok({ taskId: task.taskId });
    });

    app.get('/api/v1/veo/record-info', async (req: FastifyRequest<{ Querystring: { taskId?: string } }>, reply) => {
      if (!authorized(req, reply)) return reply;
      const id = req.query.taskId;
      if (!id) return refuse(reply, 422, 'taskId is required');
      const t = tasks.get(id);
      if (!t) return refuse(reply, 422, 'record is null');
      if (t.state === 'generating') {
        if (t.pollsLeft > 0) t.pollsLeft--;
        else {
          t.state = t.errorMessage !== undefined ? 'failed' : 'success';
          t.completedAt = Date.now();
          if (t.state === 'failed') balance += t.cost;
        }
      }
      return ok(view(t));
    });

    app.get('/api/v1/chat/credit', async (req, reply) => {
      if (!authorized(req, reply)) return reply;
      return ok(balance);
    });

    // Where results are downloaded from (KIE's own file host in reality; no key needed).
    app.get('/results/:file', async (req: FastifyRequest<{ Params: { file: string } }>, reply) => {
      const t = tasks.get(req.params.file.replace(/\.mp4$/, ''));
      if (!t || t.state !== 'success') return reply.status(404).type('text/plain').send('Not Found');
      return reply.status(200).type('video/mp4').header('content-length', video.length).send(video);
    });
  });
  origin = sim.origin;

  return Object.assign(sim, {
    tasks,
    submissions: () => tasks.size,
    credits: () => balance,
    setCredits(n: number) {
      balance = n;
    },
    failNextTask(message: string, errorCode = 501) {
      failNext = { message, code: errorCode };
    },
    setPollsUntilDone(n: number) {
      pollsUntilDone = n;
      for (const t of tasks.values()) if (t.state === 'generating') t.pollsLeft = n;
    },
    resultUrl: (taskId: string) => `${origin}/results/${taskId}.mp4`,
    injectKind(kind: InjectedKind) {
      const path = /^\/api\/v1\//;
      switch (kind) {
        case 'auth_expired':
        case 'revoked':
          return sim.inject({ path, status: 401, body: { code: 401, msg: NO_ACCESS } });
        case 'rate_limited':
          return sim.inject({ path, status: 429, headers: { 'retry-after': '1' }, body: { code: 429, msg: 'Rate Limited - Request limit has been exceeded for this resource' } });
        case 'server_error':
          return sim.inject({ path, status: 500, body: { code: 500, msg: 'Internal Error, Please try again later.' } });
        case 'rejected':
          return sim.inject({ path, status: 200, body: { code: 422, msg: 'Your prompt was flagged by Website as violating content policies.' } });
        case 'error_in_200':
          return sim.inject({ path, status: 200, body: { code: 455, msg: 'Service Unavailable - System is currently undergoing maintenance' } });
      }
    },
  });
}
