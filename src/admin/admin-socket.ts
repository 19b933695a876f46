import { createHash } from 'node:crypto';
import { chmodSync, existsSync, unlinkSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AppError } from '../errors.js';
import { AdminCommandSchema, runAdminCommand, type AdminCommand, type AdminServices } from './admin.commands.js';

/**
 * In embedded mode the database belongs to the running service, so the admin CLI reaches it over a
 * Unix socket in DATA_DIR (mode 0600: only the user running the service can use it). The socket
 * answers local admin commands only; it is never a TCP port.
 */
export function adminSocketPath(dataDir: string): string {
  const abs = resolve(dataDir);
  const inDir = join(abs, 'admin.sock');
  // Unix socket paths are limited to ~107 bytes; long data folders get a stable path in tmpdir.
  if (Buffer.byteLength(inDir) < 100) return inDir;
  return join(tmpdir(), `tidings-${createHash('sha256').update(abs).digest('hex').slice(0, 16)}.sock`);
}

export interface AdminReply {
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
}

export async function startAdminSocket(dataDir: string, services: AdminServices, onError: (err: unknown) => void): Promise<Server> {
  const path = adminSocketPath(dataDir);
  // We hold the data-folder lock, so a socket file left here is from a dead process.
  if (existsSync(path)) unlinkSync(path);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let reply: AdminReply;
        let status = 200;
        try {
          const parsed = AdminCommandSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
          if (!parsed.success) throw new AppError('VALIDATION_FAILED', parsed.error.issues.map((i) => i.message).join('; '));
          reply = { ok: true, result: await runAdminCommand(services, parsed.data) };
        } catch (e) {
          if (e instanceof AppError) {
            status = e.status;
            reply = { ok: false, error: { code: e.code, message: e.message } };
          } else {
            onError(e);
            status = 500;
            reply = { ok: false, error: { code: 'INTERNAL', message: 'Internal error (see the service log)' } };
          }
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
      })();
    });
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(path, () => ok());
  });
  chmodSync(path, 0o600);
  server.on('close', () => {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  });
  return server;
}

/** Sends a command to a running service; `undefined` when no service answers on the socket. */
export function sendAdminCommand(dataDir: string, cmd: AdminCommand): Promise<AdminReply | undefined> {
  const path = adminSocketPath(dataDir);
  if (!existsSync(path)) return Promise.resolve(undefined);
  return new Promise((ok, fail) => {
    const req = request({ socketPath: path, method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          ok(JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdminReply);
        } catch (e) {
          fail(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error('The running service did not answer on its admin socket within 30 s')));
    req.on('error', (e: NodeJS.ErrnoException) => {
      // A socket file without a listener: the service is gone (crash); fall back to direct access.
      if (e.code === 'ECONNREFUSED' || e.code === 'ENOENT') ok(undefined);
      else fail(e);
    });
    req.end(JSON.stringify(cmd));
  });
}
