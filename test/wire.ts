import { createServer, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Listens on a free loopback port, for tests that need real sockets (the app is closed by its TestApp). */
export async function listen(app: FastifyInstance): Promise<{ port: number; origin: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}` };
}

/** A free loopback port (for an app whose PUBLIC_URL must name its own origin before it listens). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
