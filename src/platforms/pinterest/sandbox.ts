import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { PINTEREST_API_ORIGIN, PINTEREST_UPLOAD_ORIGIN, PINTEREST_WWW_ORIGIN, startPinterestSimulator } from './pinterest.simulator.js';

/**
 * The board of the example: made for the first account of the organisation's simulator (a board
 * has one owner). Every account also has its own board, its id from the account key, which the
 * boards tool lists.
 */
const SANDBOX_BOARD = '1020276715534400001';

/**
 * Pinterest in the sandbox: the app (any redirect URI), a pinner per account approving its own
 * consent, with a board named after it; pictures pulled by URL come from the service's public URL
 * (`mediaOrigins`). The feed is the account's pins, the media Pinterest received in order (a
 * video, then its cover).
 */
export default defineSandboxKit({
  origins: [PINTEREST_WWW_ORIGIN, PINTEREST_API_ORIGIN, PINTEREST_UPLOAD_ORIGIN],
  app: SANDBOX_APPS.pinterest,
  example: { settings: { board: SANDBOX_BOARD, title: 'Hello from the Tidings sandbox' }, media: 'image' },
  async start(ctx) {
    const sim = await startPinterestSimulator({ mediaOrigins: ctx.mediaOrigins, videoPollsUntilReady: 1 });
    sim.addApp(SANDBOX_APPS.pinterest);
    return sim;
  },
  addAccount(sim, account) {
    const id = numericId(account.key, 12, 'pinterest');
    if (!sim.users.has(id)) sim.addUser({ id, username: account.handle, business_name: account.name, account_type: 'BUSINESS' });
    const board = numericId(account.key, 19, 'pinterest-board');
    if (!sim.boards.some((b) => b.id === board)) sim.addBoard({ id: board, name: account.name, owner: id });
    if (!sim.boards.some((b) => b.id === SANDBOX_BOARD)) sim.addBoard({ id: SANDBOX_BOARD, name: 'Tidings sandbox', owner: id });
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    return sim.pins
      .filter((p) => p.userId === internalId)
      .map((p, i) => ({ p, i }))
      .sort((a, b) => a.p.createdAt - b.p.createdAt || a.i - b.i)
      .map(({ p }): SandboxFeedItem => {
        const media: SandboxFeedItem['media'] = p.images.map((m) => ({ kind: 'image', sha256: m.sha256, mimeType: m.contentType }));
        if (p.videoSha256) media.push({ kind: 'video', sha256: p.videoSha256 });
        if (p.cover && 'sha256' in p.cover) media.push({ kind: 'image', sha256: p.cover.sha256, mimeType: p.cover.contentType });
        return {
          id: p.id,
          text: p.description ?? '',
          ...(p.title ? { title: p.title } : {}),
          media,
          createdAt: new Date(p.createdAt).toISOString(),
        };
      });
  },
  fault(sim, fault) {
    switch (fault) {
      case 'revoked':
        // Pinterest answers a revoked grant's access token as an expired one: the refresh is refused too.
        sim.inject({ path: /^\/v5\/oauth\/token/, status: 400, body: { code: 1, message: 'Invalid parameters: the refresh token is invalid or expired' } });
        return sim.injectKind('revoked');
      case 'rate_limited':
        return sim.injectKind('rate_limited');
      case 'media_refused':
        return sim.inject({ path: /^\/v5\/(pins|media)(\?|$)/, status: 400, body: { code: 1, message: 'Invalid parameters: the image could not be read' } });
      case 'duplicate':
        return sim.injectKind('rejected');
    }
  },
});
