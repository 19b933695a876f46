import { createHash } from 'node:crypto';
import { openAsBlob, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../src/lib/clock.js';
import { JPEG_1X1, PNG_1X1 } from '../src/platforms/common/media.testkit.js';
import { createPlatformHttp, withSignal, type PlatformHttpClient } from '../src/platforms/http.js';
import { PlatformError, type ConnectedAccount, type Credentials, type OperationContext, type PlatformAdapter, type PublishItem } from '../src/platforms/platform.js';
import type { InjectedKind } from './simulators/harness.js';

/** The parts of an operation context every platform test builds the same way (quiet logger, own signal). */
export function testContext(http: PlatformHttpClient, clock: Clock = systemClock): Omit<OperationContext, 'credentials' | 'openMedia'> {
  const signal = new AbortController().signal;
  return { http: withSignal(http, signal), logger: { debug: () => undefined, info: () => undefined, warn: () => undefined }, clock, signal };
}

/** What a platform's simulator holds for a published post. */
export type { PublishedRecord } from '../src/platforms/simulator.js';
import type { PublishedRecord } from '../src/platforms/simulator.js';

export interface ContractSetup {
  /** real origin → simulator origin */
  origins: Map<string, string>;
  injectKind(kind: InjectedKind): void;
  /** connects an account the way a user would (credentials form or OAuth code) */
  connect(ctx: Omit<OperationContext, 'credentials'>): Promise<ConnectedAccount>;
  lookup(id: string): PublishedRecord | undefined;
  /** makes the current access token expire (platforms whose tokens do) */
  expireToken?(): void;
  close(): Promise<void>;
}

export interface ContractSubject {
  name: string;
  adapter: PlatformAdapter;
  setup(): Promise<ContractSetup>;
  /** the platform answers some errors under HTTP 200 */
  errorsIn200: boolean;
  /**
   * Cases that cannot apply for a reason the metadata does not tell, with that reason (the thread
   * and media cases are skipped by the metadata already: `thread.supported: false`, `media.maxItems: 0`).
   */
  skip?: Partial<Record<ContractCase, string>>;
}

/** The contract's cases a platform may not be able to run. */
export type ContractCase = 'media' | 'thread';

/** Why a case does not apply to the subject, from its adapter's metadata or its own `skip`; undefined when it applies. */
export function notApplicable(subject: ContractSubject, kase: ContractCase): string | undefined {
  const m = subject.adapter.metadata;
  if (kase === 'thread' && !m.thread.supported) return `${subject.name} has no thread items (metadata: thread.supported is false)`;
  if (kase === 'media' && m.media.maxItems === 0) return `${subject.name} takes no media (metadata: media.maxItems is 0)`;
  return subject.skip?.[kase];
}

// A 1×1 PNG, and a 1×1 JPEG for platforms that take no PNG (the publisher hands them a JPEG rendition instead).
const PNG = PNG_1X1;
const JPEG = JPEG_1X1;

/** The picture the contract publishes: a PNG, or a JPEG where the platform takes no PNG (its metadata says which). */
function contractPicture(adapter: PlatformAdapter): { bytes: Buffer; mimeType: string; ext: string } {
  const rule = adapter.metadata.media.image;
  const types = rule ? (rule.platformTypes ?? rule.mimeTypes) : [];
  return types.includes('image/jpeg') && !types.includes('image/png') ? { bytes: JPEG, mimeType: 'image/jpeg', ext: 'jpg' } : { bytes: PNG, mimeType: 'image/png', ext: 'png' };
}

/**
 * The shared contract every adapter passes unchanged against its simulator (Hono's common-case
 * idea): connect, publish with text, media and thread replies, and each failure kind classified.
 */
export function runPlatformContract(subject: ContractSubject) {
  describe(`platform contract: ${subject.name}`, () => {
    let setup: ContractSetup;
    let http: PlatformHttpClient;
    let account: ConnectedAccount;
    const picture = contractPicture(subject.adapter);
    const pngPath = join(tmpdir(), `tidings-contract-${process.pid}.${picture.ext}`);
    const pngSha = createHash('sha256').update(picture.bytes).digest('hex');

    const baseCtx = (): Omit<OperationContext, 'credentials'> => ({
      ...testContext(http),
      openMedia: () => openAsBlob(pngPath, { type: picture.mimeType }),
    });
    const ctx = (credentials: Credentials = account.credentials): OperationContext => ({ ...baseCtx(), credentials });
    const item = (content: string, media: PublishItem['media'] = []): PublishItem => ({ content, media });
    const image: PublishItem['media'][number] = { id: 'media-1', path: `https://media.example/1.${picture.ext}`, type: 'image', mimeType: picture.mimeType, size: picture.bytes.length, width: 1, height: 1 };
    const publishFails = async (kind: InjectedKind) => {
      setup.injectKind(kind);
      const err = await subject.adapter.publish({ item: item(`<p>failure ${kind}</p>`), settings: {}, idempotencyKey: `k-${kind}` }, ctx()).catch((e: unknown) => e);
      expect(err, kind).toBeInstanceOf(PlatformError);
      return err as PlatformError;
    };

    beforeAll(async () => {
      writeFileSync(pngPath, picture.bytes);
      setup = await subject.setup();
      http = createPlatformHttp({ origins: setup.origins, allowPrivateTargets: false, timeoutMs: 10_000 });
      account = await setup.connect(baseCtx());
    });
    afterAll(async () => {
      await http.close();
      await setup.close();
    });

    it('connects an account with its platform id and name', () => {
      expect(account.internalId).toEqual(expect.any(String));
      expect(account.internalId.length).toBeGreaterThan(0);
      expect(account.name.length).toBeGreaterThan(0);
    });

    it('publishes text and returns the platform id and URL', async () => {
      const r = await subject.adapter.publish({ item: item('<p>Hello <strong>world</strong></p>'), settings: {}, idempotencyKey: 'k1' }, ctx());
      expect(r.status).toBe('published');
      if (r.status !== 'published') return;
      expect(r.url).toMatch(/^https:\/\//);
      expect(setup.lookup(r.id)?.text).toContain('world');
    });

    it('publishes media with the exact bytes', async (t) => {
      const skip = notApplicable(subject, 'media');
      if (skip) t.skip(skip);
      const r = await subject.adapter.publish({ item: item('<p>With a picture</p>', [image]), settings: {}, idempotencyKey: 'k2' }, ctx());
      if (r.status !== 'published') throw new Error('expected published');
      expect(setup.lookup(r.id)?.mediaSha256).toEqual([pngSha]);
    });

    it('publishes thread items as replies to the first', async (t) => {
      const skip = notApplicable(subject, 'thread');
      if (skip) t.skip(skip);
      const first = await subject.adapter.publish({ item: item('<p>Thread start</p>'), settings: {}, idempotencyKey: 'k3' }, ctx());
      if (first.status !== 'published') throw new Error('expected published');
      const second = await subject.adapter.publish(
        { item: item('<p>Second</p>'), settings: {}, replyTo: { id: first.id, rootId: first.id }, idempotencyKey: 'k4' },
        ctx(),
      );
      if (second.status !== 'published') throw new Error('expected published');
      expect(setup.lookup(second.id)?.replyTo).toBe(first.id);
      // A crash while sending the reply is reconciled by looking for it among the replies:
      // a reply the listing cannot see would be sent twice.
      if (subject.adapter.findRecent) {
        const found = await subject.adapter.findRecent({ since: new Date(0), limit: 50, replyTo: { id: first.id, rootId: first.id } }, ctx());
        expect(found.map((p) => p.id), 'findRecent with replyTo lists the reply').toContain(second.id);
        expect(found.find((p) => p.id === second.id)!.content).toContain('Second');
      }
    });

    it('classifies a lost grant as reconnect_required (or auth_expired where tokens refresh)', async () => {
      const err = await publishFails('revoked');
      expect(['reconnect_required', 'auth_expired']).toContain(err.kind);
    });

    it('classifies rate limits with the platform-given wait', async () => {
      const err = await publishFails('rate_limited');
      expect(err.kind).toBe('rate_limited');
      expect(err.details.retryAfterSeconds).toBeGreaterThan(0);
    });

    it('classifies server errors as transient', async () => {
      expect((await publishFails('server_error')).kind).toBe('transient');
    });

    it("classifies refused content as rejected, with the platform's message", async () => {
      const err = await publishFails('rejected');
      expect(err.kind).toBe('rejected');
      expect(err.message.length).toBeGreaterThan(3);
    });

    it.runIf(subject.errorsIn200)('reads errors reported inside an HTTP 200 answer', async () => {
      const err = await publishFails('error_in_200');
      expect(err.kind).toBe('rejected');
    });

    it.runIf(typeof subject.adapter.refresh === 'function')('an expired token is refreshed, then publishing succeeds', async () => {
      setup.expireToken!();
      const err = await subject.adapter.publish({ item: item('<p>after expiry</p>'), settings: {}, idempotencyKey: 'k5' }, ctx()).catch((e: unknown) => e);
      expect((err as PlatformError).kind).toBe('auth_expired');
      const refreshed = await subject.adapter.refresh!(ctx());
      account = { ...account, credentials: refreshed.credentials };
      const r = await subject.adapter.publish({ item: item('<p>after refresh</p>'), settings: {}, idempotencyKey: 'k6' }, ctx());
      expect(r.status).toBe('published');
    });
  });
}

/**
 * Connects through an OAuth adapter the way a user would, against a simulator: begin, open the
 * authorisation URL (the simulator approves at once and redirects with `code` and `state`),
 * then complete with the code. `rewrite` maps real origins to the simulator's.
 */
export async function connectViaOAuth(
  adapter: PlatformAdapter,
  ctx: Omit<OperationContext, 'credentials'>,
  rewrite: (url: string) => string,
  opts: { instanceUrl?: string; redirectUri?: string } = {},
): Promise<ConnectedAccount> {
  const { createPkce } = await import('../src/platforms/common/oauth2.js');
  const pkce = createPkce();
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const redirectUri = opts.redirectUri ?? 'http://localhost:3000/integrations/social/test/callback';
  const begun = await adapter.beginConnect!({ state, redirectUri, codeChallenge: pkce.challenge, instanceUrl: opts.instanceUrl }, ctx);
  const res = await fetch(rewrite(begun.url), { redirect: 'manual' });
  const location = res.headers.get('location');
  if (!location) throw new Error(`the simulator's authorisation page did not redirect (${res.status}): ${await res.text()}`);
  const back = new URL(location);
  expect(back.searchParams.get('state')).toBe(state);
  expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
  return adapter.completeConnect!(
    { code: back.searchParams.get('code')!, redirectUri, codeVerifier: pkce.verifier, instanceUrl: opts.instanceUrl, instanceApp: begun.instanceApp },
    ctx,
  );
}
