import net from 'node:net';
import { createServer } from 'node:net';

/**
 * Keeps the fuzz tier off the real internet, whatever the service is asked to reach (a generated
 * Mastodon instance URL, a platform origin nobody rewrote): every socket this process opens to
 * anything but loopback fails at once, before any DNS lookup (ENOTFOUND for a name, ECONNREFUSED
 * for an address), as it would on a machine with no network. Loopback stays open: the service under
 * test, its PostgreSQL, and the tier's own local servers.
 *
 * It also counts connection attempts to one port (`platformPort`, closed on purpose, where
 * PLATFORM_ORIGINS points every platform), so a 502 can be traced to "the service really tried the
 * platform we made unreachable".
 */

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;

export interface OfflineGuard {
  /** the closed loopback port every platform origin is pointed at */
  platformPort: number;
  /** connection attempts to `platformPort` so far */
  platformAttempts(): number;
  /** hosts refused so far (for the summary) */
  refused(): Map<string, number>;
  restore(): void;
}

type ConnectArgs = Parameters<net.Socket['connect']>;

type LookupCallback = (err: Error | null, address: unknown, family?: number) => void;
type LookupFunction = (hostname: string, options: object, callback: LookupCallback) => void;

interface ConnectOptions {
  host?: string;
  port?: number | string;
  path?: string;
  lookup?: LookupFunction;
}

function targetOf(args: unknown[]): { host?: string; port?: number; path?: string; options?: ConnectOptions } {
  // net.connect() hands the socket its normalised arguments as an array: [options, callback].
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (first !== null && typeof first === 'object') {
    const o = first as ConnectOptions;
    return { host: o.host, port: o.port === undefined ? undefined : Number(o.port), path: o.path, options: o };
  }
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    return { port: Number(first), host: typeof args[1] === 'string' ? args[1] : undefined };
  }
  if (typeof first === 'string') return { path: first };
  return {};
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `resolvable`: host names (RFC 2606 `.test` ones) whose connections go ahead through the
 * connection's own `lookup` (the service's guarded lookup with the tier's resolver, for
 * upload-from-url), provided what it resolves to is loopback.
 */
export async function installOfflineGuard(opts: { resolvable?: string[] } = {}): Promise<OfflineGuard> {
  const resolvable = new Set(opts.resolvable ?? []);
  const platformPort = await closedPort();
  const original = net.Socket.prototype.connect;
  let attempts = 0;
  const refused = new Map<string, number>();
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const { host, port, path, options } = targetOf(args);
    if (path !== undefined || host === undefined || LOOPBACK.test(host.replace(/^\[|\]$/g, ''))) {
      if (port === platformPort) attempts++;
      return original.apply(this, args as ConnectArgs);
    }
    if (resolvable.has(host) && options && typeof options.lookup === 'function') {
      const lookup = options.lookup;
      // Whatever the name resolves to, only loopback is connected to.
      options.lookup = (hostname, lookupOptions, callback) =>
        lookup(hostname, lookupOptions, (err, address, family) => {
          const list = Array.isArray(address) ? (address as { address: string }[]).map((a) => a.address) : [String(address)];
          if (!err && list.some((a) => !LOOPBACK.test(a))) {
            const refusedErr: NodeJS.ErrnoException = new Error(`connect ECONNREFUSED ${list.join(', ')} (the offline guard)`);
            refusedErr.code = 'ECONNREFUSED';
            callback(refusedErr, Array.isArray(address) ? [] : '', family);
            return;
          }
          callback(err, address, family);
        });
      return original.apply(this, args as ConnectArgs);
    }
    refused.set(host, (refused.get(host) ?? 0) + 1);
    const err: NodeJS.ErrnoException = net.isIP(host) === 0 ? new Error(`getaddrinfo ENOTFOUND ${host}`) : new Error(`connect ECONNREFUSED ${host}:${port ?? ''}`);
    err.code = net.isIP(host) === 0 ? 'ENOTFOUND' : 'ECONNREFUSED';
    err.syscall = net.isIP(host) === 0 ? 'getaddrinfo' : 'connect';
    process.nextTick(() => this.destroy(err));
    return this;
  };
  return {
    platformPort,
    platformAttempts: () => attempts,
    refused: () => refused,
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
}
