import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { numericId } from '../sandbox/ids.js';
import { DRIBBBLE_ORIGINS, startDribbbleSimulator, type DribbbleSimulator } from './dribbble.simulator.js';

/**
 * Dribbble in the sandbox: the app (tokens that never expire, no refresh; any redirect URI), a
 * player per account who may upload shots, approving its own consent, in a team named after it.
 * The feed is the player's shots, each with the one picture Dribbble received. A shot's picture
 * must be exactly 400×300, 800×600 or 1600×1200 pixels, in the sandbox as on Dribbble.
 */
export default defineSandboxKit<DribbbleSimulator>({
  origins: [...DRIBBBLE_ORIGINS],
  app: SANDBOX_APPS.dribbble,
  example: { settings: { title: 'Hello from the Tidings sandbox' }, media: 'image', imageSize: { width: 800, height: 600 } },
  async start() {
    const sim = await startDribbbleSimulator();
    sim.addApp({ ...SANDBOX_APPS.dribbble });
    return sim;
  },
  addAccount(sim, account) {
    const id = Number(numericId(account.key, 9, 'dribbble-player'));
    if (!sim.users.has(id)) {
      sim.addUser({ id, name: account.name, login: account.handle, avatar_url: `https://cdn.dribbble.com/users/${id}/avatars/normal/sandbox.png`, can_upload_shot: true });
      sim.addTeam({ id: Number(numericId(account.key, 7, 'dribbble-team')), name: `${account.name} studio`, login: `${account.handle}studio`, members: [id] });
    }
    return { kind: 'oauth', approve: () => sim.approveAs(id) };
  },
  feed(sim, internalId) {
    return sim.shots
      .filter((s) => String(s.userId) === internalId)
      .map((s) => ({
        id: String(s.id),
        title: s.title,
        text: s.description ?? '',
        createdAt: s.publishedAt,
        media: [{ kind: 'image' as const, sha256: s.image.sha256, mimeType: s.image.contentType }],
      }));
  },
});
