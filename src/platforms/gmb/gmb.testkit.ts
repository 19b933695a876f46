import { startPublicMediaHost, type PublicMediaHost } from '../common/media-host.testkit.js';
import { noMedia, publisher, simulatorOrigins, type TestCtx, withServer, withSimulator } from '../common/platform.testkit.js';
import type { PublishItem } from '../platform.js';
import { GMB_SIM_ORIGINS, startGmbSimulator, type GmbSimulator, type GmbSimulatorOptions } from './gmb.simulator.js';

/** Shared fixtures of the Google Business Profile tests: a Google user with two accounts and three locations, the OAuth app, a media host. */

export const GMB_APP = { clientId: '734518092011-gmbtidingstest0000000000000000.apps.googleusercontent.com', clientSecret: 'GOCSPX-GmbTidingsTest' };
export const ADA = { sub: '109876543210987654321', name: 'Ada Lovelace', email: 'ada@example.com' };
export const PERSONAL = 'accounts/111111111111111111111';
export const GROUP = 'accounts/222222222222222222222';
export const BAKERY = { id: '4242424242424242424', title: 'Ada’s Bakery', accounts: [PERSONAL, GROUP] };
export const CAFE = { id: '5353535353535353535', title: 'Ada’s Café', accounts: [GROUP], addressLines: ['2 Harbour Road'], locality: 'Bristol', postalCode: 'BS1 4RN', regionCode: 'GB' };
export const OTHERS = { id: '9999999999999999999', title: 'Babbage Engines', accounts: ['accounts/333333333333333333333'] };
/** Where the media the tests publish appear to live (the service's PUBLIC_URL in production). */
export const MEDIA_ORIGIN = 'https://media.example';
export const CALLBACK = 'https://tidings.example/integrations/social/gmb/callback';

export { sha } from '../common/media-host.testkit.js';

/** A static file host standing for `MEDIA_ORIGIN` (Google fetches photos from their public URL). */
export type MediaHost = PublicMediaHost;
export const startMediaHost = (): Promise<MediaHost> => startPublicMediaHost(MEDIA_ORIGIN);

export async function gmbSimulator(opts: GmbSimulatorOptions = {}) {
  const sim = await startGmbSimulator(opts);
  sim.addApp(GMB_APP);
  sim.addUser(ADA);
  sim.addAccount({ name: PERSONAL, accountName: 'Ada Lovelace', type: 'PERSONAL', members: [ADA.sub] });
  sim.addAccount({ name: GROUP, accountName: 'Ada’s shops', type: 'LOCATION_GROUP', members: [ADA.sub] });
  sim.addUser({ sub: '100000000000000000002', name: 'Charles Babbage', email: 'charles@example.com' });
  sim.addAccount({ name: OTHERS.accounts[0]!, accountName: 'Charles Babbage', type: 'PERSONAL', members: ['100000000000000000002'] });
  sim.addLocation(BAKERY);
  sim.addLocation(CAFE);
  sim.addLocation(OTHERS);
  return sim;
}

export const { originsFor, rewriteFor, platformOriginsFor: platformOriginsEnv } = simulatorOrigins(GMB_SIM_ORIGINS);

export type { TestCtx };

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export const withGmb = <T>(opts: GmbSimulatorOptions & { now?: () => number }, fn: (sim: GmbSimulator, ctx: TestCtx, host: MediaHost) => Promise<T>): Promise<T> =>
  withServer(startMediaHost, (host) =>
    withSimulator(
      {
        start: () => gmbSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts }),
        origins: originsFor,
        clock: opts.now ? { now: opts.now } : undefined,
        // Google fetches the photo itself: the adapter never opens the bytes.
        openMedia: noMedia('the Google Business Profile adapter must not read media bytes'),
      },
      (sim, ctx) => fn(sim, ctx, host),
    ),
  );

export function photo(url: string, mimeType = 'image/png'): PublishItem['media'][number] {
  return { id: url.split('/').pop()!, path: url, type: 'image', mimeType, size: 100, width: 1, height: 1 };
}

export const post = publisher();
