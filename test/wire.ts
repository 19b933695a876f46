import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Listens on a free loopback port, for tests that need real sockets (the app is closed by its TestApp). */
export async function listen(app: FastifyInstance): Promise<{ port: number; origin: string }> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}` };
}
