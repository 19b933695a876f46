import { SANDBOX_APPS } from '../sandbox/apps.js';
import { defineSandboxKit } from '../sandbox/kit.js';
import { tokenOf } from '../sandbox/ids.js';
import { startSlackSimulator, type SlackSimulator } from './slack.simulator.js';

/**
 * The #general channel of the example: the one of the first workspace made in the organisation's
 * simulator (a channel belongs to one workspace). Every further workspace's #general has an id
 * from its account key, as the channels tool lists it.
 */
const SANDBOX_CHANNEL = 'C0SANDBOXGEN';

const slackId = (prefix: string, key: string, salt: string) => `${prefix}0${tokenOf(key, 9, salt).toUpperCase()}`;

/**
 * Slack in the sandbox: the app (bot tokens that do not expire), a workspace per account named
 * after it (#general, with the bot a member, and #random) which its own consent installs the app
 * into. The feed is the bot's messages in the workspace's channels, thread replies pointing at
 * their parent, with the files Slack received.
 */
export default defineSandboxKit<SlackSimulator>({
  origins: ['https://slack.com', 'https://files.slack.com'],
  app: SANDBOX_APPS.slack,
  example: { settings: { channel: SANDBOX_CHANNEL }, media: 'image' },
  start: () => startSlackSimulator(SANDBOX_APPS.slack),
  addAccount(sim, account) {
    const team = slackId('T', account.key, 'slack-team');
    if (!sim.workspaces.has(team)) {
      const general = sim.workspaces.size === 0 && !sim.channels.has(SANDBOX_CHANNEL) ? SANDBOX_CHANNEL : slackId('C', account.key, 'slack-general');
      sim.addWorkspace({ id: team, name: account.name, domain: account.handle }, [
        { id: general, name: 'general', isGeneral: true, botMember: true },
        { id: slackId('C', account.key, 'slack-random'), name: 'random' },
      ]);
    }
    return {
      kind: 'oauth',
      // The authorisation page installs the app into the first workspace of the list: this account's.
      approve: () => {
        const mine = sim.workspaces.get(team)!;
        const others = [...sim.workspaces.values()].filter((w) => w.id !== team);
        sim.workspaces.clear();
        for (const w of [mine, ...others]) sim.workspaces.set(w.id, w);
      },
    };
  },
  feed(sim, internalId) {
    const ws = sim.workspaces.get(internalId);
    if (!ws) return [];
    return sim.messages
      .filter((m) => sim.channels.get(m.channel)?.teamId === internalId && (m.botId === ws.botId || m.user === ws.botUserId))
      .map((m) => ({
        id: m.ts,
        text: m.text,
        createdAt: new Date(Number(m.ts.split('.')[0]) * 1000).toISOString(),
        ...(m.threadTs ? { replyTo: m.threadTs } : {}),
        media: m.files.map((f) => ({
          kind: f.mimeType.startsWith('image/') ? ('image' as const) : f.mimeType.startsWith('video/') ? ('video' as const) : ('document' as const),
          sha256: f.sha256,
          mimeType: f.mimeType,
        })),
      }));
  },
});
