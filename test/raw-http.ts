import { connect, type Socket } from 'node:net';

/**
 * HTTP/1.1 over a bare `node:net` socket (the fuzz tier's wire cases and the edge tests), for what no well-behaved client sends: bodies shorter
 * than their Content-Length, header floods, malformed request lines, more bytes after a refused
 * upload. Every wait has a time limit, so a server that hangs fails the test quickly instead of
 * stalling it; `timeout` is a result, not an exception, and the caller decides what it means.
 */

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** status line and headers as received */
  head: string;
}

export type RawResult = RawResponse | 'closed' | 'timeout';

export class RawConnection {
  private buffer = Buffer.alloc(0);
  private responses: RawResponse[] = [];
  private waiters: (() => void)[] = [];
  /** the server closed its side (FIN) or the socket is gone */
  closedByServer = false;
  error: NodeJS.ErrnoException | undefined;
  bytesWritten = 0;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.parse();
      this.wake();
    });
    socket.on('end', () => {
      this.closedByServer = true;
      this.parse(true);
      this.wake();
    });
    socket.on('close', () => {
      this.closedByServer = true;
      this.parse(true);
      this.wake();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => {
      this.error = err;
      this.wake();
    });
  }

  static open(port: number, host = '127.0.0.1', timeoutMs = 5000): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      // allowHalfOpen: the client may finish sending (FIN) and still read the answer.
      const socket = connect({ port, host, allowHalfOpen: true });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`could not connect within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new RawConnection(socket));
      });
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Takes every complete response out of the buffer (at close, a response without a length ends there). */
  private parse(atClose = false) {
    for (;;) {
      const headEnd = this.buffer.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = this.buffer.subarray(0, headEnd).toString('latin1');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const rest = this.buffer.subarray(headEnd + 4);
      let body: Buffer;
      let used: number;
      if (headers['transfer-encoding']?.toLowerCase().includes('chunked')) {
        const decoded = decodeChunked(rest);
        if (!decoded) return;
        ({ body, used } = decoded);
      } else if (headers['content-length'] !== undefined) {
        const length = Number(headers['content-length']);
        if (rest.length < length) return;
        body = rest.subarray(0, length);
        used = length;
      } else if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
        body = Buffer.alloc(0);
        used = 0;
      } else {
        if (!atClose) return;
        body = rest;
        used = rest.length;
      }
      this.buffer = this.buffer.subarray(headEnd + 4 + used);
      if (status >= 100 && status < 200) continue; // 100 Continue and the like
      this.responses.push({ status, headers, body, head });
    }
  }

  /** Writes `data`, waiting for the socket to take it (at most `timeoutMs`): false if it did not. */
  write(data: Buffer | string, timeoutMs = 5000): Promise<boolean> {
    if (this.socket.destroyed || this.socket.writableEnded) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      const ok = this.socket.write(data, (err) => {
        if (!err) this.bytesWritten += Buffer.byteLength(data);
        if (err || ok) {
          clearTimeout(timer);
          resolve(!err);
        }
      });
      if (!ok) {
        this.socket.once('drain', () => {
          clearTimeout(timer);
          resolve(true);
        });
        this.socket.once('close', () => {
          clearTimeout(timer);
          resolve(false);
        });
      }
    });
  }

  /** Half-closes: the client sends nothing more, and still reads. */
  end() {
    if (!this.socket.destroyed) this.socket.end();
  }

  /** The next complete response, or `closed` (nothing more will come), or `timeout`. */
  async next(timeoutMs: number): Promise<RawResult> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = this.responses.shift();
      if (r) return r;
      if (this.closedByServer || this.error || this.socket.destroyed) return 'closed';
      const left = deadline - Date.now();
      if (left <= 0) return 'timeout';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until the server has closed the connection: false if it still has not after `timeoutMs`. */
  async serverCloses(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!(this.closedByServer || this.error || this.socket.destroyed)) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  destroy() {
    this.socket.destroy();
  }
}

function decodeChunked(data: Buffer): { body: Buffer; used: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return { body: Buffer.concat(parts), used: data.length };
    if (size === 0) {
      const end = data.indexOf('\r\n\r\n', lineEnd);
      if (end < 0) return undefined;
      return { body: Buffer.concat(parts), used: end + 4 };
    }
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** A request head: request line, then headers, then the blank line. */
export function requestHead(requestLine: string, headers: [string, string][]): string {
  return `${requestLine}\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;
}

/** Short text of a response for failure messages. */
export function describeRaw(r: RawResult): string {
  if (typeof r === 'string') return r;
  const body = r.body.toString('utf8');
  return `${r.head.split('\r\n').join(' | ')} || ${body.length > 300 ? `${body.slice(0, 300)}…` : body}`;
}
