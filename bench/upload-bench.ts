/**
 * Benchmark of POST /public/v1/upload with a ~1 GiB video, run by hand (never in CI):
 *   npm run build && node --import tsx bench/upload-bench.ts
 *
 * The built service runs as a child process in embedded mode (PGlite, fresh DATA_DIR,
 * MEDIA_MAX_VIDEO_BYTES raised above the file). An organisation is created with the CLI. The
 * source is a valid MP4 written to disk in 1 MiB chunks (never whole in memory): the faststart
 * fixture (ftyp, moov, free, mdat) followed by one `free` box of BENCH_SIZE_MIB MiB of pseudo-random
 * bytes (AES-CTR keystream), so every offset in the moov stays true and the service reads the same
 * metadata as from the fixture. Each run streams it as multipart/form-data with undici (the body
 * is a Readable over the file; nothing is buffered) and reports:
 *   - wall time from the request's start to the 201 and the throughput in MiB/s;
 *   - the service's RSS before, its peak during (VmRSS sampled every 100 ms), after (2 s later),
 *     and VmHWM at the end (the kernel's exact peak; reset at the start of each run through
 *     /proc/<pid>/clear_refs, so it is the run's own peak, `hwmSinceRunStart`);
 *   - CPU of the service, this process and the machine during the upload;
 *   - sha256 of the stored file (DATA_DIR/media/<key>) against the source's, and the metadata the
 *     service answered (duration, size, codecs) against the fixture's.
 * One small upload (the fixture) warms the service up first, then it idles 5 s. The stored file is
 * deleted with DELETE /media/{id} after each run (disk space).
 *
 * Environment: BENCH_SIZE_MIB (default 1024), BENCH_RUNS (3), BENCH_NODE_ARGS (see lib.ts).
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { request } from 'undici';
import { cpuMeter, ROOT, runCli, sleep, startService, stop } from './lib.js';

const PORT = 3919;
const BASE = `http://127.0.0.1:${PORT}/public/v1`;
const SIZE_MIB = Number(process.env.BENCH_SIZE_MIB ?? 1024);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MIB = 1024 * 1024;
const FIXTURE = join(ROOT, 'test/fixtures/media/h264-aac-faststart.mp4');
const BOUNDARY = '----tidings-upload-bench';

const round = (n: number, d = 0) => Math.round(n * 10 ** d) / 10 ** d;

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]);
}
const mb = (kb: number) => round(kb / 1024, 1);

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: MIB })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The fixture followed by one `free` box of `mib` MiB (header included) of AES-CTR keystream. */
async function writeSource(path: string, mib: number): Promise<{ size: number; sha256: string }> {
  const fixture = readFileSync(FIXTURE);
  const freeSize = mib * MIB;
  if (freeSize > 0xffffffff) throw new Error('BENCH_SIZE_MIB must stay under 4096 (32-bit box size)');
  const hash = createHash('sha256');
  const out = createWriteStream(path);
  const write = async (chunk: Buffer) => {
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  await write(fixture);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(freeSize, 0);
  header.write('free', 4, 'latin1');
  await write(header);
  const cipher = createCipheriv('aes-128-ctr', randomBytes(16), randomBytes(16));
  const zeros = Buffer.alloc(MIB);
  let left = freeSize - header.length;
  while (left > 0) {
    const n = Math.min(MIB, left);
    await write(cipher.update(n === MIB ? zeros : zeros.subarray(0, n)));
    left -= n;
  }
  out.end();
  await finished(out);
  return { size: fixture.length + freeSize, sha256: hash.digest('hex') };
}

interface Item {
  id: string;
  path: string;
  size: number;
  duration: number | null;
  width: number | null;
  height: number | null;
  codecs: string | null;
}

/** multipart/form-data with the file in `file`, streamed from disk; its exact length is known. */
function multipartBody(path: string, size: number) {
  const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.mp4"\r\nContent-Type: video/mp4\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  async function* parts() {
    yield head;
    for await (const chunk of createReadStream(path, { highWaterMark: MIB })) yield chunk as Buffer;
    yield tail;
  }
  return { body: Readable.from(parts(), { objectMode: false }), length: head.length + size + tail.length };
}

/**
 * Resets the kernel's peak-RSS mark (VmHWM) of `pid` to its current RSS (`5` to clear_refs, Linux
 * 4.0+), so VmHWM afterwards is the peak of this run alone, not of the start (PGlite's initdb and
 * migrations). False when the kernel refuses.
 */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

async function uploadRun(pid: number, apiKey: string, dataDir: string, source: { path: string; size: number; sha256: string }) {
  const hwmReset = resetPeak(pid);
  const rssBeforeKb = statusKb(pid, 'VmRSS');
  let peakKb = rssBeforeKb;
  const sampler = setInterval(() => {
    try {
      peakKb = Math.max(peakKb, statusKb(pid, 'VmRSS'));
    } catch {
      // the service is gone: the request fails below
    }
  }, 100);
  const cpu = cpuMeter({ service: () => [pid] });
  const { body, length } = multipartBody(source.path, source.size);
  const started = performance.now();
  let res;
  try {
    res = await request(`${BASE}/upload`, {
      method: 'POST',
      headers: { authorization: apiKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(length) },
      body,
      headersTimeout: 600_000,
      bodyTimeout: 600_000,
    });
  } finally {
    clearInterval(sampler);
  }
  const text = await res.body.text();
  const wallMs = performance.now() - started;
  const cpuPct = cpu();
  peakKb = Math.max(peakKb, statusKb(pid, 'VmRSS'));
  if (res.statusCode !== 201) throw new Error(`upload answered ${res.statusCode}: ${text}`);
  const item = JSON.parse(text) as Item;
  await sleep(2000);
  const rssAfterKb = statusKb(pid, 'VmRSS');
  const hwmKb = statusKb(pid, 'VmHWM');
  const key = new URL(item.path).pathname.replace(/^\/media\//, '');
  const stored = join(dataDir, 'media', key);
  const storedSize = statSync(stored).size;
  const storedSha = await sha256File(stored);
  const del = await request(`${BASE}/media/${item.id}`, { method: 'DELETE', headers: { authorization: apiKey } });
  await del.body.dump();
  if (del.statusCode !== 200) throw new Error(`DELETE /media answered ${del.statusCode}`);
  return {
    wallMs: Math.round(wallMs),
    mibPerSec: round(source.size / MIB / (wallMs / 1000), 1),
    rssMb: { before: mb(rssBeforeKb), peak: mb(peakKb), after: mb(rssAfterKb), hwm: mb(hwmKb), hwmSinceRunStart: hwmReset },
    cpuPct,
    stored: { size: storedSize, sha256Matches: storedSha === source.sha256 },
    answered: { size: item.size, duration: item.duration, width: item.width, height: item.height, codecs: item.codecs },
  };
}

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'tidings-upload-bench-'));
  const sourceDir = mkdtempSync(join(tmpdir(), 'tidings-upload-src-'));
  const sourcePath = join(sourceDir, 'big.mp4');
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    API_RATE_LIMIT: '1000000000',
    API_RATE_WINDOW_SECONDS: '60',
    MEDIA_MAX_VIDEO_BYTES: String((SIZE_MIB + 64) * MIB),
  };
  let child: Awaited<ReturnType<typeof startService>>['child'] | undefined;
  try {
    const t0 = performance.now();
    const source = { path: sourcePath, ...(await writeSource(sourcePath, SIZE_MIB)) };
    console.error(`source: ${source.size} bytes written in ${Math.round(performance.now() - t0)} ms`);
    ({ child } = await startService(env, PORT));
    const pid = child.pid!;
    const { apiKey } = JSON.parse(await runCli(['org', 'create', '--name', 'Bench', '--json'], env)) as { apiKey: string };
    // Warm-up: one small upload (JIT, the first PGlite queries of the media table), then idle.
    const warm = multipartBody(FIXTURE, statSync(FIXTURE).size);
    const w = await request(`${BASE}/upload`, {
      method: 'POST',
      headers: { authorization: apiKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(warm.length) },
      body: warm.body,
    });
    if (w.statusCode !== 201) throw new Error(`warm-up upload answered ${w.statusCode}: ${await w.body.text()}`);
    await w.body.dump();
    await sleep(5000);
    const idleMb = mb(statusKb(pid, 'VmRSS'));
    // the peak of the start (PGlite's initdb and migrations), before the first run resets it
    const startupHwmMb = mb(statusKb(pid, 'VmHWM'));
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await uploadRun(pid, apiKey, dataDir, source);
      console.error(`run ${i + 1}: ${r.mibPerSec} MiB/s, ${r.wallMs} ms, RSS ${r.rssMb.before} → peak ${r.rssMb.peak} → ${r.rssMb.after} MB, sha256 ${r.stored.sha256Matches ? 'ok' : 'MISMATCH'}`);
      runs.push(r);
    }
    console.log(JSON.stringify({ bench: 'upload', mode: 'embedded', sizeBytes: source.size, idleRssMb: idleMb, startupHwmMb, runs }));
  } finally {
    if (child) await stop(child);
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(sourceDir, { recursive: true, force: true });
  }
}

await main();
