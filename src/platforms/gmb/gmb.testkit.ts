import { createHash } from 'node:crypto';
import { testContext } from '../../../test/platform-contract.js';
import { startSimulator, type Simulator } from '../../../test/simulators/harness.js';
import { createPlatformHttp } from '../http.js';
import type { ConnectedAccount, OperationContext, PlatformAdapter, PublishItem } from '../platform.js';
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

export const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A static file host standing for `MEDIA_ORIGIN` (Google fetches photos from their public URL). */
export interface MediaHost extends Simulator {
  files: Map<string, { data: Buffer; type: string }>;
  /** serves `data` at `MEDIA_ORIGIN/<name>`; answers that public URL */
  put(name: string, data: Buffer, type: string): string;
}

export async function startMediaHost(): Promise<MediaHost> {
  const files = new Map<string, { data: Buffer; type: string }>();
  const host = await startSimulator((app) => {
    app.get('/*', async (req, reply) => {
      const f = files.get(req.url.split('?')[0]!.slice(1));
      if (!f) return reply.status(404).send('Not Found');
      return reply.type(f.type).send(f.data);
    });
  });
  return Object.assign(host, {
    files,
    put(name: string, data: Buffer, type: string) {
      files.set(name, { data, type });
      return `${MEDIA_ORIGIN}/${name}`;
    },
  });
}

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

export const originsFor = (sim: { origin: string }) => new Map(GMB_SIM_ORIGINS.map((o) => [o as string, sim.origin]));
export const platformOriginsEnv = (sim: { origin: string }) => GMB_SIM_ORIGINS.map((o) => `${o}=${sim.origin}`).join(',');
export const rewriteFor = (sim: { origin: string }) => (url: string) => GMB_SIM_ORIGINS.reduce((u, o) => u.replace(o, sim.origin), url);

export type TestCtx = Omit<OperationContext, 'credentials'>;

/** Runs `fn` against a fresh simulator and media host, with an HTTP client mapped to them. */
export async function withGmb<T>(opts: GmbSimulatorOptions & { now?: () => number }, fn: (sim: GmbSimulator, ctx: TestCtx, host: MediaHost) => Promise<T>) {
  const host = await startMediaHost();
  const sim = await gmbSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin }, ...opts });
  const http = createPlatformHttp({ origins: originsFor(sim), allowPrivateTargets: false, timeoutMs: 5000 });
  try {
    return await fn(
      sim,
      {
        ...testContext(http, { now: opts.now ?? (() => Date.now()) }),
        // Google fetches the photo itself: the adapter never opens the bytes.
        openMedia: () => Promise.reject(new Error('the Google Business Profile adapter must not read media bytes')),
      },
      host,
    );
  } finally {
    await http.close();
    await sim.close();
    await host.close();
  }
}

export function photo(url: string, mimeType = 'image/png'): PublishItem['media'][number] {
  return { id: url.split('/').pop()!, path: url, type: 'image', mimeType, size: 100, width: 1, height: 1 };
}

export const post = (
  a: PlatformAdapter,
  ctx: TestCtx,
  account: ConnectedAccount,
  content: string,
  extra: { media?: PublishItem['media']; settings?: Record<string, unknown>; replyTo?: { id: string; rootId: string } } = {},
) => a.publish({ item: { content, media: extra.media ?? [] }, settings: extra.settings ?? {}, replyTo: extra.replyTo, idempotencyKey: content }, { ...ctx, credentials: account.credentials });
