import net, { type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Wire-level helpers: the app on a real loopback port, and raw exchanges over one socket. */

/** Listens on a free loopback port (the app is closed by its TestApp). */
export async function listen(app: FastifyInstance): Promise<{ port: number; origin: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}` };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the HTTP/1.1 responses in `text` (Content-Length framed, as this server answers). */
export function parseResponses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.1 ')) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) break;
    const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = headEnd + 4;
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(bodyStart, bodyStart + length) });
    rest = rest.slice(bodyStart + length);
  }
  return out;
}

/** A raw client connection: write bytes, wait for what the server sends, see whether it closed. */
export class RawConnection {
  private received = '';
  private waiters: (() => void)[] = [];
  closed = false;
  readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (d: Buffer) => {
      this.received += d.toString('latin1');
      this.wake();
    });
    // A reset after the server answered is part of what is being observed, not a test failure.
    socket.on('error', () => {});
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = net.connect(port, '127.0.0.1', () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  /** Writes, resolving once the bytes are handed to the kernel (false if the socket is gone). */
  write(data: string | Buffer): Promise<boolean> {
    if (this.socket.destroyed || !this.socket.writable) return Promise.resolve(false);
    return new Promise((resolve) => this.socket.write(data, (err) => resolve(!err)));
  }

  /**
   * Waits until `count` complete responses arrived (or the socket closed); fails after
   * `timeoutMs`, so a hung connection fails the test quickly instead of hanging it.
   */
  async responses(count: number, timeoutMs = 5000): Promise<RawResponse[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = parseResponses(this.received);
      if (parsed.length >= count || this.closed) return parsed;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms; received so far: ${JSON.stringify(this.received.slice(0, 300))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Resolves true once the server closed the connection, false if it is still open after `timeoutMs`. */
  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.closed;
  }

  destroy() {
    this.socket.destroy();
  }
}
