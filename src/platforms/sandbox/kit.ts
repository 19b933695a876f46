import type { OAuthApp } from '../common/oauth2.js';
import type { InjectedKind, Simulator } from '../simulator.js';

/**
 * What a platform gives the sandbox (`platforms/<id>/sandbox.ts`): its simulator, started
 * in-process, with the sandbox's own app registered (fixed test values, never a secret of the
 * deployment), and how to make an account there, connect it, read what it published and make it
 * fail. The adapter itself is the platform's real one: the sandbox only points it at the simulator.
 */
export interface SandboxAccount {
  /** stable for a channel: the same key makes the same platform account (same ids), so a restarted simulator can take the channel back */
  key: string;
  /** display name of the account, e.g. "Sandbox X 3f2a" */
  name: string;
  /** short handle made from the key (letters and digits), e.g. "sandbox3f2a" */
  handle: string;
}

/** How a sandbox account is connected: the credentials form's body, or an OAuth consent given by the account. */
export type SandboxConnection =
  | { kind: 'credentials'; body: Record<string, unknown> }
  /** the authorisation page approves as the account (the kit makes it so before the consent is asked) */
  | { kind: 'oauth'; instanceUrl?: string; approve(): void | Promise<void> };

/** One published item as the platform holds it (a thread's replies point at their parent). */
export interface SandboxFeedItem {
  /** the platform's id of the item (the post's `releaseId` for the first) */
  id: string;
  /** the item's text (or title and body) as the platform stored it, markup as the platform keeps it */
  text: string;
  /** `text` is HTML (articles, Tumblr, LinkedIn little text rendered) */
  html?: boolean;
  title?: string;
  /** the platform's id of the item this replies to (thread items, comments) */
  replyTo?: string;
  /** the media the platform received, in order */
  media: { kind: 'image' | 'video' | 'document' | 'other'; sha256?: string; mimeType?: string }[];
  createdAt?: string;
  /** counters the platform reports (likes, views…), where the simulator keeps them */
  metrics?: Record<string, number>;
}

export type SandboxFault =
  /** the grant is gone: the channel must be reconnected */
  | 'revoked'
  /** the platform says slow down (with its wait) */
  | 'rate_limited'
  /** the platform refuses the media */
  | 'media_refused'
  /** the platform refuses the text as a duplicate */
  | 'duplicate';

export interface SandboxStartContext {
  /**
   * For simulators that download the media they are given by URL (as Instagram, Threads or
   * Pinterest do): the service's public origin → where this process answers it on loopback.
   * Pass it as the simulator's `mediaOrigins`.
   */
  mediaOrigins: Record<string, string>;
}

/** What the sandbox needs of a simulator: an app to inject into (HTTP APIs), and closing. */
export type SandboxSimulator = Pick<Simulator, 'close'> & Partial<Pick<Simulator, 'app'>>;

export interface SandboxKit<S extends SandboxSimulator = Simulator> {
  /** the platform's real origins that the simulator answers (API, uploads, authorisation page, instance) */
  origins: readonly string[];
  /** the sandbox's OAuth app at the simulator (OAuth platforms) */
  app?: OAuthApp;
  /** starts the simulator (the sandbox runs this in in-process mode) with `app` registered */
  start(ctx: SandboxStartContext): Promise<S>;
  /** makes the account `account.key` (idempotent: a second call with the same key changes nothing) and says how to connect it */
  addAccount(sim: S, account: SandboxAccount): SandboxConnection | Promise<SandboxConnection>;
  /** what the account `internalId` (the channel's platform id) published, oldest first */
  feed(sim: S, internalId: string): SandboxFeedItem[];
  /**
   * Queues `fault` for the next request that would meet it, in the platform's own words. The
   * default maps revoked/rate_limited to the simulator's `injectKind` and the refusals to `rejected`.
   */
  fault?(sim: S, fault: SandboxFault): void;
  /**
   * WebSocket platforms (Nostr): where a socket to `url` goes — the simulator's own loopback
   * server — or undefined to refuse it. Only for URLs of the kit's `origins`.
   */
  socketTarget?(sim: S, url: string): string | undefined;
  /** what a first post on the platform needs: the settings it requires (a subreddit, a board, a title…) and the media it takes */
  example?: { settings?: Record<string, unknown>; media?: 'image' | 'video' | 'none'; /** the picture size the platform takes, when it takes only some (Dribbble) */ imageSize?: { width: number; height: number } };
}

/** The simulators whose failures come in the generic kinds. */
export interface InjectableSimulator extends Simulator {
  injectKind(kind: InjectedKind): void;
}

export function defineSandboxKit<S extends SandboxSimulator>(kit: SandboxKit<S>): SandboxKit<S> {
  return kit;
}
