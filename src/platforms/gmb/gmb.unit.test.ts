import { describe, expect, it } from 'vitest';
import { hostingContractPng, oauthConnector, platformFailure, runSimulatorContract } from '../common/unit.testkit.js';
import { withCreds, published } from '../common/platform.testkit.js';
import { CONTRACT_PNG } from '../common/media-pull.testkit.js';
import type { PlatformResponse } from '../platform.js';
import { DEFAULT_RATE_LIMIT_SECONDS, gmbError } from './errors.js';
import {
  ADA,
  BAKERY,
  CAFE,
  CALLBACK,
  GMB_APP,
  gmbSimulator,
  GROUP,
  MEDIA_ORIGIN,
  originsFor,
  OTHERS,
  PERSONAL,
  photo,
  post,
  rewriteFor,
  sha,
  startMediaHost,
  withGmb,
  type MediaHost,
  type TestCtx,
} from './gmb.testkit.js';
import { createGmbAdapter, gmbIssues, locationUrl } from './index.js';

const adapter = createGmbAdapter({ app: GMB_APP });
const connect = oauthConnector(adapter, rewriteFor, { redirectUri: CALLBACK });
const DAY = 86_400_000;

const PNG = (n: number) => Buffer.concat([CONTRACT_PNG.subarray(0, 8), Buffer.from(`png-${n}`)]);
const JPEG = (n: number) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from(`jpeg-${n}`)]);

// Local posts have no replies or comments (the metadata says `thread.supported: false`, so post
// validation refuses thread items): the contract's thread case cannot apply. The adapter's
// answer to a reply is tested below.
runSimulatorContract({
  name: 'gmb',
  adapter,
  // A local post Google files as REJECTED comes back under HTTP 200.
  errorsIn200: true,
  host: () => hostingContractPng(startMediaHost),
  start: (host: MediaHost) => gmbSimulator({ mediaOrigins: { [MEDIA_ORIGIN]: host.origin } }),
  origins: originsFor,
  connect,
});

describe('gmb: connecting, locations and tokens', () => {
  it('asks Google for offline access and connects the first location, keeping the account its posts go through', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      expect(account).toMatchObject({ internalId: `locations/${BAKERY.id}`, name: BAKERY.title, profile: '1 Main Street, 12345 Springfield', picture: null });
      expect(account.credentials).toMatchObject({ accountName: PERSONAL, locationName: `locations/${BAKERY.id}`, refreshToken: expect.stringMatching(/^1\/\/0/) });
      expect(account.expiresAt!.getTime() - Date.now()).toBeGreaterThan(3500_000);
      const consent = new URL(sim.log.find((r) => r.path.startsWith('/o/oauth2/v2/auth'))!.path, 'http://x').searchParams;
      expect({ access: consent.get('access_type'), prompt: consent.get('prompt') }).toEqual({ access: 'offline', prompt: 'consent' });
      expect(consent.get('scope')!.split(' ')).toContain('https://www.googleapis.com/auth/business.manage');
      const locationsCall = sim.log.find((r) => r.path.startsWith(`/v1/${PERSONAL}/locations`))!;
      expect(new URL(locationsCall.path, 'http://x').searchParams.get('readMask')).toBe('name,title,storefrontAddress,metadata');
    });
  });

  it('the locations tool lists every location once, and selectAccount switches to one (bare id or name), never to another user’s', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const list = (await adapter.runTool!('locations', {}, withCreds(ctx, account))) as { id: string; name: string; account: string; current: boolean; address: string }[];
      expect(list.map((l) => ({ id: l.id, account: l.account, current: l.current }))).toEqual([
        { id: `locations/${BAKERY.id}`, account: PERSONAL, current: true },
        { id: `locations/${CAFE.id}`, account: GROUP, current: false },
      ]);
      expect(list[1]!.address).toBe('2 Harbour Road, BS1 4RN Bristol');
      const cafe = await adapter.selectAccount!(CAFE.id, withCreds(ctx, account));
      expect(cafe).toMatchObject({ internalId: `locations/${CAFE.id}`, name: CAFE.title, credentials: { accountName: GROUP, locationName: `locations/${CAFE.id}`, refreshToken: account.credentials.refreshToken } });
      const r = published(await post(adapter, ctx, cafe, '<p>Fresh coffee</p>'));
      expect(r.id).toMatch(new RegExp(`^${GROUP}/locations/${CAFE.id}/localPosts/\\d+$`));
      expect(sim.posts.at(-1)).toMatchObject({ locationId: CAFE.id, accountName: GROUP });
      const other = await platformFailure(adapter.selectAccount!(`locations/${OTHERS.id}`, withCreds(ctx, account)));
      expect(other.kind).toBe('rejected');
      expect((await platformFailure(adapter.runTool!('reviews', {}, withCreds(ctx, account)))).kind).toBe('unsupported');
    });
  });

  it('refuses a Google account without locations, and a grant without business.manage', async () => {
    await withGmb({}, async (sim, ctx) => {
      sim.addUser({ sub: '100000000000000000077', name: 'No Shops', email: 'none@example.com' });
      sim.approveAs('100000000000000000077');
      expect((await platformFailure(connect(sim, ctx))).message).toMatch(/manages no Business Profile location/);
      sim.approveAs(ADA.sub);
      sim.grantOnly(['https://www.googleapis.com/auth/userinfo.profile']);
      expect((await platformFailure(connect(sim, ctx))).message).toMatch(/did not grant access to the Business Profile/);
    });
  });

  it('refreshes the one-hour token keeping the refresh token; a revoked grant asks for a reconnect', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.expireAccessTokens();
      expect((await platformFailure(post(adapter, ctx, account, '<p>x</p>'))).kind).toBe('auth_expired');
      const renewed = await adapter.refresh!(withCreds(ctx, account));
      expect(renewed.credentials).toMatchObject({ refreshToken: account.credentials.refreshToken, locationName: `locations/${BAKERY.id}` });
      expect(renewed.credentials.accessToken).not.toBe(account.credentials.accessToken);
      expect(sim.refreshCount()).toBe(1);
      const token = sim.log.filter((r) => r.path === '/token').at(-1)!;
      expect(token.body).toMatchObject({ grant_type: 'refresh_token', client_id: GMB_APP.clientId, client_secret: GMB_APP.clientSecret });
      sim.revokeGrants();
      const dead = await platformFailure(adapter.refresh!(withCreds(ctx, account)));
      expect({ kind: dead.kind, code: dead.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'invalid_grant' });
      const none = await platformFailure(adapter.refresh!({ ...ctx, credentials: { ...account.credentials, refreshToken: null } }));
      expect(none.kind).toBe('reconnect_required');
    });
  });

  it('says Google Business Profile is not configured without an app', async () => {
    const err = await platformFailure(createGmbAdapter({}).beginConnect!({ state: 's', redirectUri: CALLBACK }, {} as TestCtx));
    expect(err.kind).toBe('unsupported');
  });
});

describe('gmb: local posts', () => {
  it('a STANDARD post: plain text summary, a button with its URL, one photo Google fetched (bytes by sha256)', async () => {
    await withGmb({}, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      const url = host.put('bread.jpg', JPEG(1), 'image/jpeg');
      const r = published(
        await post(adapter, ctx, account, '<p>New <strong>sourdough</strong> &amp; rye</p><p>Every day</p>', {
          media: [photo(url, 'image/jpeg')],
          settings: { __type: 'gmb', callToActionType: 'ORDER', callToActionUrl: 'https://bakery.example/order' },
        }),
      );
      const p = sim.posts.find((x) => x.name === r.id)!;
      expect(r.url).toBe(p.searchUrl);
      expect(p).toMatchObject({ summary: 'New sourdough & rye\nEvery day', topicType: 'STANDARD', languageCode: 'en', callToAction: { actionType: 'ORDER', url: 'https://bakery.example/order' }, event: null, offer: null });
      expect(p.media).toEqual([{ mediaFormat: 'PHOTO', sourceUrl: url, sha256: sha(JPEG(1)), size: JPEG(1).length, contentType: 'image/jpeg' }]);
      expect(host.log.filter((l) => l.path === '/bread.jpg')).toHaveLength(1);
    });
  });

  it('an EVENT with dates and times, and a CALL button without a URL', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const settings = { topicType: 'EVENT', eventTitle: ' Summer fair ', eventStartDate: '2026-07-01', eventEndDate: '2026-07-03', eventStartTime: '09:00', eventEndTime: '18:30', callToActionType: 'CALL', callToActionUrl: 'https://left.over' };
      const r = published(await post(adapter, ctx, account, '<p>Come along</p>', { settings }));
      expect(sim.posts.find((x) => x.name === r.id)).toMatchObject({
        topicType: 'EVENT',
        callToAction: { actionType: 'CALL' },
        event: { title: 'Summer fair', schedule: { startDate: { year: 2026, month: 7, day: 1 }, endDate: { year: 2026, month: 7, day: 3 }, startTime: { hours: 9, minutes: 0 }, endTime: { hours: 18, minutes: 30 } } },
      });
      const sent = sim.log.filter((l) => l.method === 'POST' && l.path.endsWith('/localPosts')).at(-1)!.body as Record<string, unknown>;
      expect(sent.callToAction).toEqual({ actionType: 'CALL' });
    });
  });

  it('an OFFER: the offer fields, all-day schedule, and no button (Google shows "redeem online")', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const settings = {
        topicType: 'OFFER',
        eventTitle: '10% off',
        eventStartDate: '2026-08-01',
        eventEndDate: '2026-08-31',
        offerCouponCode: 'BREAD10',
        offerRedeemUrl: 'https://bakery.example/redeem',
        offerTerms: 'One per customer',
        callToActionType: 'LEARN_MORE',
        callToActionUrl: 'https://bakery.example',
      };
      const r = published(await post(adapter, ctx, account, '<p>All month</p>', { settings }));
      const p = sim.posts.find((x) => x.name === r.id)!;
      expect(p).toMatchObject({ topicType: 'OFFER', callToAction: null, offer: { couponCode: 'BREAD10', redeemOnlineUrl: 'https://bakery.example/redeem', termsConditions: 'One per customer' } });
      expect(p.event).toEqual({ title: '10% off', schedule: { startDate: { year: 2026, month: 8, day: 1 }, endDate: { year: 2026, month: 8, day: 31 } } });
    });
  });

  it('a post still under review answers pending; checkPublish reads it until it is LIVE', async () => {
    await withGmb({ reviewReads: 2 }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const first = await post(adapter, ctx, account, '<p>Reviewed</p>');
      if (first.status !== 'pending') throw new Error('expected pending');
      const c = withCreds(ctx, account);
      expect((await adapter.checkPublish!(first.token, c)).status).toBe('pending');
      const done = await adapter.checkPublish!(first.token, c);
      expect(done).toEqual({ status: 'published', id: first.token, url: sim.posts[0]!.searchUrl });
      expect(sim.posts).toHaveLength(1);
      expect((await platformFailure(adapter.checkPublish!('../../etc', c))).kind).toBe('rejected');
    });
  });

  it('Google’s refusals: a REJECTED post under 200, a photo it cannot fetch or read, a video; no replies', async () => {
    await withGmb({}, async (sim, ctx, host) => {
      const account = await connect(sim, ctx);
      sim.rejectNextPost();
      const rejected = await platformFailure(post(adapter, ctx, account, '<p>Call 555-0100 now</p>'));
      expect({ kind: rejected.kind, code: rejected.details.platformCode }).toEqual({ kind: 'rejected', code: 'REJECTED' });
      const missing = await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: [photo(`${MEDIA_ORIGIN}/gone.png`)] }));
      expect({ kind: missing.kind, message: missing.message }).toEqual({
        kind: 'rejected',
        message: `Request contains an invalid argument. (media[0].source_url: Failed to fetch the media from ${MEDIA_ORIGIN}/gone.png (HTTP 404))`,
      });
      const gif = await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: [photo(host.put('a.gif', Buffer.from('GIF89a....'), 'image/gif'), 'image/gif')] }));
      expect(gif.message).toContain('must be a JPG or PNG image');
      const video = { ...photo(host.put('v.mp4', Buffer.from('....ftyp'), 'video/mp4')), type: 'video' as const, mimeType: 'video/mp4' };
      expect((await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: [video] }))).message).toMatch(/cannot carry a video/);
      const two = [photo(host.put('1.png', PNG(1), 'image/png')), photo(host.put('2.png', PNG(2), 'image/png'))];
      expect((await platformFailure(post(adapter, ctx, account, '<p>x</p>', { media: two }))).message).toMatch(/at most one photo/);
      expect((await platformFailure(post(adapter, ctx, account, '<p>x</p>', { replyTo: { id: 'a', rootId: 'a' } }))).kind).toBe('unsupported');
      expect(sim.posts.filter((p) => p.state !== 'REJECTED')).toHaveLength(0);
    });
  });

  it('a location the grant lost: PERMISSION_DENIED asks for a reconnect; a deleted location is a final refusal', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.accounts.find((a) => a.name === PERSONAL)!.members = [];
      const lost = await platformFailure(post(adapter, ctx, account, '<p>x</p>'));
      expect({ kind: lost.kind, code: lost.details.platformCode }).toEqual({ kind: 'reconnect_required', code: 'PERMISSION_DENIED' });
      sim.accounts.find((a) => a.name === PERSONAL)!.members = [ADA.sub];
      sim.locations.delete(BAKERY.id);
      const gone = await platformFailure(post(adapter, ctx, account, '<p>x</p>'));
      expect({ kind: gone.kind, message: gone.message }).toEqual({ kind: 'rejected', message: 'Requested entity was not found.' });
    });
  });

  it('findRecent lists the location’s posts since a time, newest first, named as publish names them', async () => {
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const made = [];
      for (const n of [1, 2, 3]) made.push(published(await post(adapter, ctx, account, `<p>Post ${n}</p>`)));
      const found = await adapter.findRecent!({ since: new Date(Date.now() - DAY), limit: 2 }, withCreds(ctx, account));
      expect(found.map((f) => f.id)).toEqual([made[2]!.id, made[1]!.id]);
      expect(found[0]).toMatchObject({ url: made[2]!.url, content: 'Post 3' });
      expect(await adapter.findRecent!({ since: new Date(Date.now() + DAY), limit: 10 }, withCreds(ctx, account))).toEqual([]);
      await expect(adapter.findRecent!({ since: new Date(0), limit: 5, replyTo: { id: 'x', rootId: 'x' } }, withCreds(ctx, account))).rejects.toMatchObject({ kind: 'unsupported' });
    });
  });

  it('daily location metrics, the impressions summed, missing days as 0', async () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    await withGmb({ now: () => now }, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      sim.setDailyMetrics(BAKERY.id, [
        { date: '2026-03-09', metrics: { BUSINESS_IMPRESSIONS_MOBILE_MAPS: 30, BUSINESS_IMPRESSIONS_DESKTOP_SEARCH: 12, WEBSITE_CLICKS: 4, CALL_CLICKS: 2 } },
        { date: '2026-03-10', metrics: { BUSINESS_IMPRESSIONS_MOBILE_SEARCH: 5, BUSINESS_DIRECTION_REQUESTS: 1 } },
      ]);
      const series = await adapter.analytics!(3, withCreds(ctx, account));
      expect(series.map((s) => s.label)).toEqual(['Impressions', 'Website clicks', 'Calls', 'Direction requests', 'Conversations', 'Bookings']);
      expect(series[0]!.data).toEqual([
        { date: '2026-03-08', total: 0 },
        { date: '2026-03-09', total: 42 },
        { date: '2026-03-10', total: 5 },
      ]);
      expect(series[1]!.data.map((d) => d.total)).toEqual([0, 4, 0]);
      const q = new URL(sim.log.find((l) => l.path.includes(':fetchMultiDailyMetricsTimeSeries'))!.path, 'http://x').searchParams;
      expect(q.get('dailyRange.startDate.day')).toBe('8');
      expect(q.getAll('dailyMetrics')).toHaveLength(9);
    });
  });
});

describe('gmb: validation', () => {
  it('an EVENT or an OFFER needs its title and dates, real ones in order, and times both or neither', () => {
    expect(gmbIssues({})).toEqual([]);
    expect(gmbIssues({ topicType: 'STANDARD', eventStartDate: 'nonsense' })).toEqual([]);
    expect(gmbIssues({ topicType: 'OFFER' }).map((i) => [i.path, i.code])).toEqual([
      ['settings.eventTitle', 'required'],
      ['settings.eventStartDate', 'required'],
      ['settings.eventEndDate', 'required'],
    ]);
    // An EVENT's missing title is the settings schema's; validate does not say it twice.
    expect(gmbIssues({ topicType: 'EVENT', eventStartDate: '2026-02-30', eventEndDate: '2026-03-01' }).map((i) => [i.path, i.code])).toEqual([['settings.eventStartDate', 'invalid_date']]);
    expect(gmbIssues({ topicType: 'EVENT', eventTitle: 'x', eventStartDate: '2026-03-02', eventEndDate: '2026-03-01' }).map((i) => [i.path, i.code])).toEqual([['settings.eventEndDate', 'end_before_start']]);
    expect(
      gmbIssues({ topicType: 'EVENT', eventTitle: 'x', eventStartDate: '2026-03-01', eventEndDate: '2026-03-01', eventStartTime: '18:00', eventEndTime: '09:00' }).map((i) => i.code),
    ).toEqual(['end_before_start']);
    expect(gmbIssues({ topicType: 'EVENT', eventTitle: 'x', eventStartDate: '2026-03-01T00:00:00Z', eventEndDate: '2026-03-01', eventStartTime: '25:00' }).map((i) => [i.path, i.code])).toEqual([
      ['settings.eventStartTime', 'invalid_time'],
      ['settings.eventEndTime', 'required'],
    ]);
    expect(gmbIssues({ topicType: 'STANDARD', callToActionType: 'GET_OFFER' }).map((i) => i.path)).toEqual(['settings.callToActionType']);
  });

  it('validate reports the same rules by path, and publish refuses what validate would', async () => {
    expect(adapter.validate({ settings: { topicType: 'OFFER', eventTitle: 'x', eventStartDate: '2026-01-01' }, items: [] }).map((i) => i.path)).toEqual(['settings.eventEndDate']);
    await withGmb({}, async (sim, ctx) => {
      const account = await connect(sim, ctx);
      const err = await platformFailure(post(adapter, ctx, account, '<p>x</p>', { settings: { topicType: 'OFFER', eventTitle: 'x' } }));
      expect(err.message).toBe('settings.eventStartDate: Required for an offer (YYYY-MM-DD)');
      expect((await platformFailure(post(adapter, ctx, account, `<p>${'a'.repeat(1501)}</p>`))).message).toMatch(/at most 1500 characters/);
      expect(sim.posts).toHaveLength(0);
    });
  });
});

describe('gmb: error classification', () => {
  const res = (status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): PlatformResponse => ({ status, headers, body: { error: { code: status, message: 'msg', ...error } } });

  it('reads Google’s statuses, ErrorInfo reasons and RetryInfo', () => {
    expect(gmbError({ status: 200, headers: {}, body: {} })).toBeUndefined();
    expect(gmbError(res(401, { status: 'UNAUTHENTICATED' }))?.kind).toBe('auth_expired');
    const quota = gmbError(res(429, { status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12.5s' }] }))!;
    expect({ kind: quota.kind, wait: quota.details.retryAfterSeconds }).toEqual({ kind: 'rate_limited', wait: 13 });
    expect(gmbError(res(429, { status: 'RESOURCE_EXHAUSTED' }))?.details.retryAfterSeconds).toBe(DEFAULT_RATE_LIMIT_SECONDS);
    expect(gmbError(res(429, { status: 'RESOURCE_EXHAUSTED' }, { 'retry-after': '7' }))?.details.retryAfterSeconds).toBe(7);
    expect(gmbError(res(503, { status: 'UNAVAILABLE' }))?.kind).toBe('transient');
    const scope = gmbError(res(403, { status: 'PERMISSION_DENIED', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' }] }))!;
    expect(scope.kind).toBe('reconnect_required');
    const disabled = gmbError(res(403, { status: 'PERMISSION_DENIED', message: 'My Business API has not been used in project 1 before or it is disabled.', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SERVICE_DISABLED' }] }))!;
    expect({ kind: disabled.kind, code: disabled.details.platformCode }).toEqual({ kind: 'rejected', code: 'SERVICE_DISABLED' });
    expect(disabled.message).toMatch(/this server's Google project/);
    const invalid = gmbError(res(400, { status: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.', details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'read_mask', description: 'Field is required' }] }] }))!;
    expect({ kind: invalid.kind, message: invalid.message }).toEqual({ kind: 'rejected', message: 'Request contains an invalid argument. (read_mask: Field is required)' });
    expect(gmbError({ status: 404, headers: {}, body: 'Not Found' })?.kind).toBe('rejected');
  });

  it('a post without a searchUrl is shown on the location’s page', () => {
    expect(locationUrl(`locations/${CAFE.id}`)).toBe(`https://business.google.com/locations/${CAFE.id}`);
  });
});
