import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishItem } from '../platform.js';
import { mediaFrom, published, simulatorOrigins, withSimulator } from './platform.testkit.js';
import { LINKEDIN_API_ORIGIN, LINKEDIN_WWW_ORIGIN, startLinkedinSimulator, type LinkedinSimulator, type LinkedinSimulatorOptions } from './linkedin.simulator.js';

/** Shared fixtures of the `linkedin` and `linkedin-page` tests: one simulator with a member who administers two pages. */

export const APP = { clientId: '86abcdefgh1234', clientSecret: 'WPL_AP1.secret.value==' };
export const ADA = { sub: 'Xk3_9aBcD1', name: 'Ada Lovelace', picture: 'https://media.licdn.com/dms/image/v2/ada/profile-displayphoto-shrink_100_100/0' };

export async function linkedinSimulator(opts: LinkedinSimulatorOptions & { refreshTokens?: boolean } = {}) {
  const sim = await startLinkedinSimulator(opts);
  sim.addApp({ ...APP, refreshTokens: opts.refreshTokens ?? true });
  sim.addMember(ADA);
  sim.addMember({ sub: 'Bb7_other', name: 'Charles Babbage' });
  sim.addOrganization({ id: '1001', name: 'Analytical Engines', vanityName: 'analytical-engines', admins: ['Bb7_other'] });
  sim.addOrganization({ id: '2002', name: 'Difference Works', vanityName: 'difference-works', admins: [ADA.sub, 'Bb7_other'] });
  sim.addOrganization({ id: '3003', name: 'Notes Ltd', vanityName: 'notes-ltd', admins: [ADA.sub] });
  return sim;
}

export const { originsFor, rewriteFor } = simulatorOrigins([LINKEDIN_API_ORIGIN, LINKEDIN_WWW_ORIGIN]);

export type TestCtx = Omit<OperationContext, 'credentials'> & { media: Map<string, Blob> };

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it. */
export function withLinkedin<T>(opts: LinkedinSimulatorOptions & { refreshTokens?: boolean; now?: () => number }, fn: (sim: LinkedinSimulator, ctx: TestCtx) => Promise<T>) {
  const media = new Map<string, Blob>();
  const clock = { now: opts.now ?? (() => Date.now()) };
  return withSimulator({ start: () => linkedinSimulator(opts), origins: originsFor, clock, openMedia: mediaFrom(media) }, (sim, ctx) => fn(sim, { media, ...ctx }));
}

export { published };

export { pixelPng as PNG, sha } from './media.testkit.js';

export function image(id: string, alt?: string): PublishItem['media'][number] {
  return { id, path: `https://media.example/${id}.png`, type: 'image', mimeType: 'image/png', size: 70, width: 1, height: 1, alt: alt ?? null };
}

export function video(id: string, size: number): PublishItem['media'][number] {
  return { id, path: `https://media.example/${id}.mp4`, type: 'video', mimeType: 'video/mp4', size, duration: 5 };
}

export const post = (a: PlatformAdapter, ctx: TestCtx, account: ConnectedAccount, content: string, extra: { media?: PublishItem['media']; settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string } } = {}) =>
  a.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? {}, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });


/** The env of an app (api tests) talking to the simulator with this test app as the deployment's, `prefix` `LINKEDIN` or `LINKEDIN_PAGE`. */
export const linkedinAppEnv = (sim: LinkedinSimulator, prefix: 'LINKEDIN' | 'LINKEDIN_PAGE', publicUrl: string): Record<string, string> => ({
  PUBLIC_URL: publicUrl,
  PLATFORM_ORIGINS: `${LINKEDIN_WWW_ORIGIN}=${sim.origin},${LINKEDIN_API_ORIGIN}=${sim.origin}`,
  [`${prefix}_CLIENT_ID`]: APP.clientId,
  [`${prefix}_CLIENT_SECRET`]: APP.clientSecret,
});
