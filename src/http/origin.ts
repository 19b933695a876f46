import type { FastifyRequest } from 'fastify';

/**
 * The origin this request reached the service at (`http://127.0.0.1:3000`), from its scheme and
 * `Host` (`X-Forwarded-Proto`/`-Host` with TRUST_PROXY); undefined when there is no usable host.
 * One server has several addresses (127.0.0.1, localhost, a LAN name); PUBLIC_URL is only the
 * one platforms and mail use.
 */
export function requestOrigin(req: FastifyRequest): string | undefined {
  const host = req.host;
  // a host and maybe a port, nothing that would make the URL say more (a path, user info)
  if (!host || /[/\\@?#\s]/.test(host)) return undefined;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return undefined;
  }
}
