import { withBotSimulator } from '../common/chat-bot.testkit.js';
import type { OAuthApp } from '../common/oauth2.js';
import { simulatorOrigins, type TestCtx } from '../common/platform.testkit.js';
import type { OperationContext, PlatformAdapter } from '../platform.js';
import { startSlackSimulator, type SlackSimulator } from './slack.simulator.js';

/** Shared fixtures of the Slack tests: a workspace with its channels, a simulator wired to an HTTP client. */

export const TEAM = 'T0ACME';
export const GENERAL = 'C0GENERAL';
export const RANDOM = 'C0RANDOM';
export const SECRET = 'G0SECRET';
export const HIDDEN = 'G0HIDDEN';
export const OLD = 'C0OLD';

export async function slackSimulator(app: OAuthApp) {
  const sim = await startSlackSimulator(app);
  sim.addWorkspace({ id: TEAM, name: 'Acme Corp', domain: 'acme', icon: 'https://avatars.slack-edge.com/acme' }, [
    { id: RANDOM, name: 'random', botMember: true },
    { id: GENERAL, name: 'general', isGeneral: true },
    { id: SECRET, name: 'secret', isPrivate: true, botMember: true },
    { id: HIDDEN, name: 'hidden', isPrivate: true },
    { id: OLD, name: 'old', isArchived: true, botMember: true },
  ]);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor } = simulatorOrigins(['https://slack.com', 'https://files.slack.com']);

export type { TestCtx };

/** What the contract's `lookup` reads of a posted message: its text, thread and the files' SHA-256. */
export function lookupIn(sim: SlackSimulator) {
  return (id: string) => {
    const m = sim.messages.find((x) => x.ts === id);
    if (!m) return undefined;
    return { text: m.text, replyTo: m.threadTs, mediaSha256: m.files.map((f) => f.sha256) };
  };
}

/**
 * Runs `fn` against a fresh workspace; `openMedia` answers `bytes of <id>`, and `connected()`
 * installs the app through OAuth and gives the context with the stored credentials.
 */
export function withSlack<T>(app: OAuthApp, adapter: PlatformAdapter, fn: (sim: SlackSimulator, ctx: TestCtx, connected: () => Promise<OperationContext>) => Promise<T>): Promise<T> {
  return withBotSimulator(() => slackSimulator(app), originsFor, rewriteFor, (sim, ctx, connectAs) => fn(sim, ctx, () => connectAs(adapter)));
}
