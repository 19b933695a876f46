import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { numericId, tokenOf } from '../sandbox/ids.js';
import { LINKEDIN_API_ORIGIN, LINKEDIN_WWW_ORIGIN, startLinkedinSimulator, type LinkedinSimulator } from './linkedin-page.simulator.js';

/** A sandbox account's LinkedIn member (its OIDC `sub`). */
const linkedinMemberOf = (key: string) => tokenOf(key, 10, 'linkedin-member');

/**
 * What `author` (`urn:li:person:…` or `urn:li:organization:…`) published, as the LinkedIn simulator
 * keeps it: its posts with the media uploaded for them, and its
 * comments (thread items) under them. The text is what LinkedIn shows of the little text sent.
 */
function linkedinFeed(sim: LinkedinSimulator, author: string): SandboxFeedItem[] {
  const items: (SandboxFeedItem & { at: number })[] = [];
  for (const p of sim.posts.filter((x) => x.author === author)) {
    const media = p.mediaUrns.map((urn, i) => {
      const asset = sim.assets.get(urn);
      const kind = asset?.kind === 'video' ? ('video' as const) : asset?.kind === 'document' ? ('document' as const) : ('image' as const);
      return { kind, sha256: asset?.sha256 ?? p.mediaSha256[i], ...(asset?.mimeType ? { mimeType: asset.mimeType } : {}) };
    });
    items.push({ id: p.urn, text: p.text, media, createdAt: new Date(p.createdAt).toISOString(), at: p.createdAt });
  }
  for (const c of sim.comments.filter((x) => x.actor === author)) {
    items.push({ id: c.urn, text: c.text, replyTo: c.object, media: [], createdAt: new Date(c.createdAt).toISOString(), at: c.createdAt });
  }
  return items
    .map((item, i) => ({ item, i }))
    .sort((a, b) => a.item.at - b.item.at || a.i - b.i)
    .map(({ item: { at: _at, ...item } }) => item);
}

/** LinkedIn pages in the sandbox: the app (with refresh tokens), a member per account administering one page named after it. */
export default defineSandboxKit({
  origins: [LINKEDIN_WWW_ORIGIN, LINKEDIN_API_ORIGIN],
  app: SANDBOX_APPS['linkedin-page'],
  example: { media: 'image' },
  async start() {
    const sim = await startLinkedinSimulator({ videoPollsUntilAvailable: 1 });
    sim.addApp({ ...SANDBOX_APPS['linkedin-page'], refreshTokens: true });
    return sim;
  },
  addAccount(sim, account) {
    const sub = linkedinMemberOf(account.key);
    const id = numericId(account.key, 8, 'linkedin-page');
    sim.addMember({ sub, name: `${account.name} (administrator)` });
    sim.addOrganization({ id, name: account.name, vanityName: account.handle, admins: [sub] });
    return { kind: 'oauth', approve: () => sim.approveAs(sub) };
  },
  feed: (sim, internalId) => linkedinFeed(sim, `urn:li:organization:${internalId}`),
});
