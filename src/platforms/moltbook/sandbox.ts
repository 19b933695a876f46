import { defineSandboxKit, type SandboxFeedItem } from '../sandbox/kit.js';
import { hexId, tokenOf } from '../sandbox/ids.js';
import { MOLTBOOK_ORIGIN, startMoltbookSimulator, type MoltbookSimulator } from './moltbook.simulator.js';

/** The submolt every sandbox agent may post to (the example's). */
const SUBMOLT = 'general';

/** Each simulator's agents: id (the channel's internalId) → name (the author of posts and comments). */
const agentNames = new WeakMap<MoltbookSimulator, Map<string, string>>();

/** A UUID-shaped agent id from the account key. */
const agentId = (key: string) => hexId(key, 32, 'moltbook').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * Moltbook in the sandbox: a claimed agent per account with its API key, text posts in m/general
 * and comments under them. No cooldowns between posts or comments (a rate limit is a fault to ask for).
 */
export default defineSandboxKit({
  origins: [MOLTBOOK_ORIGIN],
  example: { settings: { submolt: SUBMOLT }, media: 'none' },
  async start() {
    const sim = await startMoltbookSimulator({ postCooldownSeconds: 0, commentCooldownSeconds: 0 });
    sim.addSubmolt(SUBMOLT);
    agentNames.set(sim, new Map());
    return sim;
  },
  addAccount(sim, account) {
    const id = agentId(account.key);
    const apiKey = `moltbook_sk_${tokenOf(account.key, 32, 'moltbook')}`;
    sim.addAgent({ id, name: account.handle, displayName: account.name, apiKey, claimed: true });
    agentNames.get(sim)!.set(id, account.handle);
    return { kind: 'credentials', body: { apiKey } };
  },
  feed(sim, internalId) {
    const name = agentNames.get(sim)?.get(internalId);
    if (!name) return [];
    const items: SandboxFeedItem[] = [
      ...sim.posts.filter((p) => p.agent === name && p.verified).map((p) => ({ id: p.id, title: p.title, text: p.content ?? p.url ?? '', createdAt: p.createdAt, media: [] })),
      ...sim.comments.filter((c) => c.agent === name).map((c) => ({ id: c.id, text: c.content, createdAt: c.createdAt, replyTo: c.parentId ?? c.postId, media: [] })),
    ];
    return items.sort((a, b) => a.createdAt!.localeCompare(b.createdAt!));
  },
});
