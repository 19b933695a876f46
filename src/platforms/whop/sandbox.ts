import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { tokenOf } from '../sandbox/ids.js';
import { startWhopSimulator, WHOP_ORIGIN, WHOP_UPLOAD_ORIGIN, type WhopCompanyRecord, type WhopSimulator } from './whop.simulator.js';

/** The sandbox's company and its forum (experience) every sandbox account is a member of (the example's). */
const COMPANY: WhopCompanyRecord = { id: 'biz_TidingsSandbox', title: 'Tidings sandbox', members: [], forums: [{ id: 'forum_TidingsSandbox', experienceId: 'exp_TidingsSandbox', name: 'Sandbox forum' }] };

/** Each simulator's sandbox company (the simulator keeps the record it is given: members are added to it). */
const companyOf = new WeakMap<WhopSimulator, WhopCompanyRecord>();

/**
 * Whop in the sandbox: the OAuth app (its one redirect URI: the service's callback, from its
 * public origin), a user per account approving its own consent and member of the sandbox company,
 * forum posts with their files, comments under them.
 */
export default defineSandboxKit({
  origins: [WHOP_ORIGIN, WHOP_UPLOAD_ORIGIN],
  app: SANDBOX_APPS.whop,
  example: { settings: { company: COMPANY.id, experience: COMPANY.forums[0]!.experienceId, title: 'Hello from the Tidings sandbox' }, media: 'image' },
  async start(ctx) {
    const sim = await startWhopSimulator({ processingPolls: 1 });
    const origins = Object.keys(ctx.mediaOrigins);
    const redirectUris = (origins.length > 0 ? origins : ['http://localhost:3000']).map((o) => `${o}/integrations/social/whop/callback`);
    sim.addApp({ clientId: SANDBOX_APPS.whop.clientId, clientSecret: SANDBOX_APPS.whop.clientSecret, redirectUris });
    const company = structuredClone(COMPANY);
    sim.addCompany(company);
    companyOf.set(sim, company);
    return sim;
  },
  addAccount(sim, account) {
    const id = `user_${tokenOf(account.key, 12, 'whop')}`;
    sim.addUser({ id, username: account.handle, name: account.name });
    const company = companyOf.get(sim)!;
    if (!company.members.includes(id)) company.members.push(id);
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    return sim.posts
      .filter((p) => p.userId === internalId)
      .map((p) => ({
        id: p.id,
        ...(p.title ? { title: p.title } : {}),
        text: p.content ?? '',
        createdAt: p.createdAt,
        ...(p.parentId ? { replyTo: p.parentId } : {}),
        media: p.attachments.map((fileId, i) => {
          const mimeType = sim.files.get(fileId)?.contentType ?? '';
          return { kind: mimeType.startsWith('video/') ? ('video' as const) : mimeType.startsWith('image/') ? ('image' as const) : ('document' as const), sha256: p.mediaSha256[i], ...(mimeType ? { mimeType } : {}) };
        }),
      }));
  },
});
