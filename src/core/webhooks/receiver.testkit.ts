import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP receiver on loopback for the webhook tests: it records every request (headers and
 * the exact body bytes) and answers with what `respond` decides; `respond` may also never answer.
 */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** the JSON body, parsed */
  json: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
  /** real time it arrived (Date.now()) */
  receivedAt: number;
}

export type Responder = (req: ReceivedRequest, index: number, res: ServerResponse) => void;

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  /** requests whose answer was never sent (the responder left them hanging) */
  hanging(): number;
  close(): Promise<void>;
}

/** Answers `status` with `body`. */
export function answer(status: number, body = '', headers: Record<string, string> = {}): Responder {
  return (_req, _i, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };
}

/** Answers the statuses in turn, then the last one for ever. */
export function answerInTurn(...statuses: number[]): Responder {
  return (req, i, res) => answer(statuses[Math.min(i, statuses.length - 1)]!, `answer ${i + 1}`)(req, i, res);
}

/** Never answers (the connection stays open until the client gives up or the receiver closes). */
export const neverAnswer: Responder = () => undefined;

export async function startReceiver(respond: Responder = answer(200, 'ok')): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const received: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        json: JSON.parse(body) as ReceivedRequest['json'],
        receivedAt: Date.now(),
      };
      const index = requests.push(received) - 1;
      open.add(res);
      res.on('finish', () => open.delete(res));
      res.on('close', () => open.delete(res));
      respond(received, index, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    hanging: () => [...open].filter((r) => !r.writableEnded).length,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The service's own secret generator, for webhooks the tests insert directly. */
export { newWebhookSecret } from './secrets.js';
