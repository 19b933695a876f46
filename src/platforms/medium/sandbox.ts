import { defineSandboxKit } from '../sandbox/kit.js';
import { hexId } from '../sandbox/ids.js';
import { MEDIUM_API_ORIGIN, startMediumSimulator } from './medium.simulator.js';

const kindOf = (mimeType: string) => (mimeType.startsWith('image/') ? ('image' as const) : ('other' as const));

/** Medium in the sandbox: a writer per sandbox account with its integration token, stories (and the pictures Medium fetched) as it keeps them. */
export default defineSandboxKit({
  origins: [MEDIUM_API_ORIGIN],
  example: { settings: { title: 'Hello from the Tidings sandbox', subtitle: 'A story published by a sandbox channel' }, media: 'image' },
  start: (ctx) => startMediumSimulator({ mediaOrigins: ctx.mediaOrigins }),
  addAccount(sim, account) {
    const token = hexId(account.key, 33, 'medium-token');
    sim.addUser({ id: hexId(account.key, 35, 'medium'), username: account.handle, name: account.name }, token);
    return { kind: 'credentials', body: { token } };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.authorId === internalId)
      .map((p) => ({
        id: p.id,
        title: p.title,
        text: p.content,
        ...(p.contentFormat === 'html' ? { html: true } : {}),
        media: p.images.map((m) => ({ kind: kindOf(m.mimeType), sha256: m.sha256, mimeType: m.mimeType })),
      }));
  },
});
