import WebSocket, { type ClientOptions } from 'ws';
import type { Event as NostrEvent, Filter } from 'nostr-tools';
import { PlatformError, type OperationContext } from '../platform.js';

/**
 * A relay connection over WebSocket (NIP-01), opened through the service's outgoing guard: the
 * relay URL is user-typed, so it goes through `ctx.http.socketTarget` (PLATFORM_ORIGINS rewrite,
 * SSRF guard with the guarded DNS lookup), like any other user-supplied host.
 */
export class RelaySocket {
  private readonly listeners = new Set<(msg: unknown[]) => void>();
  private closeListeners = new Set<(why: string) => void>();
  closedBecause: string | null = null;

  constructor(
    readonly relay: string,
    private readonly ws: WebSocket,
  ) {
    ws.on('message', (data) => {
      let msg: unknown;
      try {
        msg = JSON.parse((data as Buffer).toString('utf8'));
      } catch {
        return;
      }
      if (Array.isArray(msg)) for (const l of this.listeners) l(msg);
    });
    const closed = (why: string) => {
      if (this.closedBecause !== null) return;
      this.closedBecause = why;
      for (const l of this.closeListeners) l(why);
    };
    ws.on('close', (code) => closed(`the connection closed (${code})`));
    ws.on('error', (e) => closed(`the connection failed: ${e.message}`));
  }

  send(msg: unknown[]): void {
    this.ws.send(JSON.stringify(msg));
  }

  /**
   * Waits for the first message `pick` accepts. Answers `{ timeout }` after `timeoutMs`, or
   * `{ closed }` when the connection ends first.
   */
  wait<T>(pick: (msg: unknown[]) => T | undefined, timeoutMs: number, signal?: AbortSignal): Promise<{ value: T } | { timeout: true } | { closed: string }> {
    return new Promise((resolve) => {
      const done = (r: { value: T } | { timeout: true } | { closed: string }) => {
        clearTimeout(timer);
        this.listeners.delete(onMsg);
        this.closeListeners.delete(onClose);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const onMsg = (m: unknown[]) => {
        const v = pick(m);
        if (v !== undefined) done({ value: v });
      };
      const onClose = (why: string) => done({ closed: why });
      const onAbort = () => done({ closed: 'cancelled' });
      const timer = setTimeout(() => done({ timeout: true }), timeoutMs);
      this.listeners.add(onMsg);
      this.closeListeners.add(onClose);
      signal?.addEventListener('abort', onAbort);
      if (this.closedBecause !== null) onClose(this.closedBecause);
    });
  }

  /** Every message until `stop` says so (or timeout/close), for REQ subscriptions. */
  onMessage(fn: (msg: unknown[]) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  close(): void {
    this.ws.terminate();
  }
}

function describeError(e: unknown): string {
  const err = e as { code?: string; message?: string; cause?: unknown };
  if (err.code === 'ENOTFOUND') return 'no such host';
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  return err.message || String(e);
}

/** Opens a connection to `relay`; rejects with a `PlatformError` (`rejected` for a refused address, `transient` otherwise). */
export function openRelay(ctx: Pick<OperationContext, 'http' | 'signal'>, relay: string, timeoutMs: number): Promise<RelaySocket> {
  if (!ctx.http.socketTarget) return Promise.reject(new PlatformError('unsupported', 'This service cannot open WebSocket connections'));
  let target;
  try {
    target = ctx.http.socketTarget(relay, { untrustedHost: true });
  } catch (e) {
    return Promise.reject(e instanceof PlatformError ? e : new PlatformError('rejected', describeError(e)));
  }
  return new Promise((resolve, reject) => {
    const options: ClientOptions & { lookup?: unknown } = {
      handshakeTimeout: timeoutMs,
      followRedirects: false,
      maxPayload: 8 * 1024 * 1024,
      headers: { 'user-agent': 'Tidings' },
      ...(target.lookup ? { lookup: target.lookup } : {}),
    };
    const ws = new WebSocket(target.url, options);
    const onAbort = () => ws.terminate();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const fail = (message: string, blocked = false) => {
      ctx.signal.removeEventListener('abort', onAbort);
      ws.terminate();
      reject(new PlatformError(blocked ? 'rejected' : 'transient', message));
    };
    ws.once('open', () => {
      ctx.signal.removeEventListener('abort', onAbort);
      ws.removeAllListeners('unexpected-response');
      resolve(new RelaySocket(relay, ws));
    });
    ws.once('unexpected-response', (_req, res) => fail(`answered HTTP ${res.statusCode} instead of opening a WebSocket`));
    ws.once('error', (e: Error & { code?: string }) => fail(describeError(e), e.code === 'EBLOCKEDADDRESS'));
  });
}

/**
 * Runs a REQ on one relay and collects the events until EOSE (or `CLOSED`, or the timeout: what
 * arrived by then is kept). Events whose id or signature is wrong are dropped.
 */
export async function queryRelay(
  ctx: Pick<OperationContext, 'http' | 'signal'>,
  relay: string,
  filters: Filter[],
  timeoutMs: number,
  verify: (e: NostrEvent) => boolean,
): Promise<NostrEvent[]> {
  const sock = await openRelay(ctx, relay, timeoutMs);
  const sub = `q${Math.random().toString(36).slice(2, 10)}`;
  const events: NostrEvent[] = [];
  const stop = sock.onMessage((m) => {
    if (m[0] === 'EVENT' && m[1] === sub && m[2] && typeof m[2] === 'object' && verify(m[2] as NostrEvent)) events.push(m[2] as NostrEvent);
  });
  try {
    sock.send(['REQ', sub, ...filters]);
    const end = await sock.wait((m) => ((m[0] === 'EOSE' || m[0] === 'CLOSED') && m[1] === sub ? m : undefined), timeoutMs, ctx.signal);
    if ('value' in end && end.value[0] === 'CLOSED') throw new PlatformError('rejected', `${relay} refused the query: ${typeof end.value[2] === 'string' ? end.value[2] : ''}`);
    if ('closed' in end && events.length === 0) throw new PlatformError('transient', `${relay}: ${end.closed}`);
    if (sock.closedBecause === null) sock.send(['CLOSE', sub]);
    return events;
  } finally {
    stop();
    sock.close();
  }
}
