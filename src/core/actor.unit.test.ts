import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { currentActor, runAsActor, type Actor } from './actor.js';

const olga: Actor = { kind: 'user', id: 'u1', name: 'Olga' };

describe('the actor of the work running now', () => {
  it('is the system when nobody set one, and the one set inside runAsActor (across awaits)', async () => {
    expect(currentActor()).toEqual({ kind: 'system', id: null, name: 'System' });
    const seen = await runAsActor(olga, async () => {
      await new Promise((r) => setImmediate(r));
      return currentActor();
    });
    expect(seen).toBe(olga);
    expect(currentActor().kind).toBe('system');
  });

  it('reaches the route handler from a callback onRequest hook after an async auth hook, as http/auth.ts installs them', async () => {
    const app = Fastify();
    app.decorateRequest('who', null as unknown as Actor);
    app.addHook('onRequest', async (req) => {
      await new Promise((r) => setImmediate(r));
      (req as unknown as { who: Actor }).who = { kind: 'api_key', id: String(req.headers['x-id']), name: `key ${String(req.headers['x-id'])}` };
    });
    app.addHook('onRequest', (req, _reply, done) => {
      runAsActor((req as unknown as { who: Actor }).who, done);
    });
    app.post('/', async () => {
      await new Promise((r) => setImmediate(r));
      return currentActor();
    });
    const [a, b] = await Promise.all([
      app.inject({ method: 'POST', url: '/', headers: { 'x-id': 'a' }, payload: { x: 1 } }),
      app.inject({ method: 'POST', url: '/', headers: { 'x-id': 'b' }, payload: { x: 2 } }),
    ]);
    expect(a.json()).toEqual({ kind: 'api_key', id: 'a', name: 'key a' });
    expect(b.json()).toEqual({ kind: 'api_key', id: 'b', name: 'key b' });
    await app.close();
  });
});
