import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { startThreadsSimulator, THREADS_GRAPH_ORIGIN, THREADS_WWW_ORIGIN } from './threads.simulator.js';

/**
 * Threads in the sandbox: the Threads app, a profile per account approving its own consent, posts
 * and replies as Threads keeps them. Threads pulls each picture and video from the service's
 * public URL (`mediaOrigins`).
 */
export default defineSandboxKit({
  origins: [THREADS_WWW_ORIGIN, THREADS_GRAPH_ORIGIN],
  app: SANDBOX_APPS.threads,
  example: { media: 'image' },
  async start(ctx) {
    const sim = await startThreadsSimulator({ mediaOrigins: ctx.mediaOrigins, polls: { VIDEO: 1 } });
    sim.addApp(SANDBOX_APPS.threads);
    return sim;
  },
  addAccount(sim, account) {
    const id = numericId(account.key, 17, 'threads');
    sim.addUser({ id, username: account.handle, name: account.name, followers: 120 });
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.userId === internalId)
      .map((p) => ({
        id: p.id,
        text: p.text,
        createdAt: new Date(p.createdAt).toISOString(),
        ...(p.replyTo ? { replyTo: p.replyTo } : {}),
        media: p.media.map((m) => ({ kind: m.mimeType.startsWith('video/') ? ('video' as const) : ('image' as const), sha256: m.sha256, mimeType: m.mimeType })),
      }));
  },
});
