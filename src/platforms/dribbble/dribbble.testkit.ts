import { simulatorOrigins, withMediaSimulator, type MediaTestCtx } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishItem } from '../platform.js';
import { DRIBBBLE_ORIGINS, startDribbbleSimulator, type DribbbleSimulator, type DribbbleSimulatorOptions } from './dribbble.simulator.js';

/** Shared fixtures of the Dribbble tests: an app, a player in two teams, pictures of a given size, a simulator wired to an HTTP client. */

export const DRIBBBLE_APP = { clientId: 'dribbble-client-4f2a9c', clientSecret: 'dribbble-client-secret-77e1' };
export const PLAYER = { id: 1_904_321, name: 'Ada Lovelace', login: 'adadesigns', avatar_url: 'https://cdn.dribbble.com/users/1904321/avatars/normal/ada.png', can_upload_shot: true };
export const STUDIO = { id: 7_001, name: 'Engine Studio', login: 'enginestudio', members: [PLAYER.id] };
export const OTHER_TEAM = { id: 7_002, name: 'Someone Else', login: 'someoneelse', members: [42] };
export const CALLBACK = 'https://tidings.example/integrations/social/dribbble/callback';

export async function dribbbleSimulator(opts: DribbbleSimulatorOptions = {}) {
  const sim = await startDribbbleSimulator(opts);
  sim.addApp({ ...DRIBBBLE_APP, redirectUris: [CALLBACK] });
  sim.addUser(PLAYER);
  sim.addUser({ id: 42, name: 'Not Pro', login: 'notpro', avatar_url: 'https://cdn.dribbble.com/users/42/a.png', can_upload_shot: false });
  sim.addTeam(STUDIO);
  sim.addTeam(OTHER_TEAM);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor: platformOriginsEnv } = simulatorOrigins(DRIBBBLE_ORIGINS);

export { png, sha } from '../common/media.testkit.js';

export type TestCtx = MediaTestCtx;

/** Runs `fn` against a fresh simulator with an HTTP client mapped to it; media bytes by id from `ctx.media`. */
export const withDribbble = <T>(opts: DribbbleSimulatorOptions, fn: (sim: DribbbleSimulator, ctx: TestCtx) => Promise<T>): Promise<T> =>
  withMediaSimulator({ start: () => dribbbleSimulator(opts), origins: originsFor }, fn);

/** Registers `bytes` as media `id` in `ctx` and describes it as the service would. */
export function addImage(ctx: TestCtx, id: string, bytes: Buffer, width: number, height: number, mimeType = 'image/png'): PublishItem['media'][number] {
  ctx.media.set(id, new Blob([bytes], { type: mimeType }));
  return { id, path: `https://tidings.example/media/${id}.png`, type: 'image', mimeType, size: bytes.length, width, height };
}

export const shoot = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount,
  content: string,
  media: PublishItem['media'],
  settings: Record<string, unknown> = { __type: 'dribbble', title: 'A shot' },
) => a.publish({ item: { content, media }, settings, idempotencyKey: content }, { ...ctx, credentials: account.credentials });
