import { and, eq } from 'drizzle-orm';
import type { InjectOptions } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.js';
import { startDiscordSimulator, type DiscordSimulator } from '../../platforms/discord/discord.simulator.js';
import { discordMetadata } from '../../platforms/discord/metadata.js';
import { LINKEDIN_API_ORIGIN, LINKEDIN_WWW_ORIGIN, type LinkedinSimulator } from '../../platforms/linkedin/linkedin.simulator.js';
import { ADA, linkedinSimulator } from '../../platforms/linkedin/linkedin.testkit.js';
import { linkedinMetadata } from '../../platforms/linkedin/metadata.js';
import { linkedinPageMetadata } from '../../platforms/linkedin-page/metadata.js';
import type { PlatformMetadata } from '../../platforms/platform.js';
import { redditMetadata } from '../../platforms/reddit/metadata.js';
import { S3_ORIGIN, startRedditSimulator, type RedditSimulator } from '../../platforms/reddit/reddit.simulator.js';
import { slackMetadata } from '../../platforms/slack/metadata.js';
import { startSlackSimulator, type SlackSimulator } from '../../platforms/slack/slack.simulator.js';
import { xMetadata } from '../../platforms/x/metadata.js';
import { startXSimulator, type XSimulator } from '../../platforms/x/x.simulator.js';
import { buildTestApp, call, expectError, expectIsolated, type TestOrg, useTestApp } from '../../../test/helpers.js';
import { DISCORD, LINKEDIN_APP, LINKEDIN_PAGE_APP, oauthAppEnv, REDDIT_APP, SLACK_APP, X_APP } from '../../../test/oauth-apps.js';
import type { Simulator } from '../../../test/simulators/harness.js';

/**
 * Connecting and using each OAuth platform end to end through the HTTP API, against its
 * simulator: begin (`GET /social/{id}`), the browser step, the callback, reconnecting, tools,
 * analytics, transparent token refresh, revoked grants and organisation isolation.
 */

const PUBLIC_URL = 'https://tidings.example';
const X_USER = { id: '1460000000000000001', name: 'Acme Inc.', username: 'acme', profile_image_url: 'https://pbs.twimg.com/a.jpg', followers: 1200, following: 80 };
const GUILD = '2100000000000000001';
const DAY = 86_400_000;

let x: XSimulator;
let reddit: RedditSimulator;
let discord: DiscordSimulator;
let slack: SlackSimulator;
let linkedin: LinkedinSimulator;

afterAll(async () => {
  await Promise.all([x, reddit, discord, slack, linkedin].map((s) => s?.close()));
});

const { t, orgs: { acme, beta } } = useTestApp(async () => {
  x = await startXSimulator();
  x.addClient(X_APP);
  x.addUser(X_USER);

  reddit = await startRedditSimulator();
  reddit.addApp({ clientId: REDDIT_APP.clientId, secret: REDDIT_APP.clientSecret, redirectUri: `${PUBLIC_URL}/integrations/social/reddit/callback` });
  reddit.addUser({ id: '8xwlg', name: 'tidings_tester' });
  reddit.addSubreddit({ name: 'typescript', title: 'TypeScript programming' });
  reddit.addSubreddit({ name: 'node', title: 'Node.js', flairRequired: true, flairs: [{ id: 'f-show', text: 'Show-off' }, { id: 'f-help', text: 'Help' }] });
  reddit.addSubreddit({ name: 'typesecret', title: 'Private types', type: 'private' });

  discord = await startDiscordSimulator(DISCORD);
  discord.addGuild({ id: GUILD, name: 'Acme Guild', icon: 'a1b2c3d4', systemChannelId: '2200000000000000001' }, [
    { id: '2200000000000000005', name: 'Text Channels', type: 4 },
    { id: '2200000000000000002', name: 'announcements', type: 5 },
    { id: '2200000000000000001', name: 'general', type: 0 },
    { id: '2200000000000000003', name: 'Lounge', type: 2 },
  ]);

  slack = await startSlackSimulator(SLACK_APP);
  slack.addWorkspace({ id: 'T0ACME', name: 'Acme Corp', domain: 'acme', icon: 'https://avatars.slack-edge.com/acme' }, [
    { id: 'C0RANDOM', name: 'random', botMember: true },
    { id: 'C0GENERAL', name: 'general', isGeneral: true },
    { id: 'G0SECRET', name: 'secret', isPrivate: true, botMember: true },
    { id: 'G0HIDDEN', name: 'hidden', isPrivate: true },
    { id: 'C0OLD', name: 'old', isArchived: true, botMember: true },
  ]);

  // One simulator answers for both LinkedIn adapters (they share the real origins); each has its own app.
  linkedin = await linkedinSimulator();
  linkedin.addApp({ ...LINKEDIN_PAGE_APP, refreshTokens: true });

  const origins = [
    ['https://x.com', x],
    ['https://api.x.com', x],
    ['https://www.reddit.com', reddit],
    ['https://oauth.reddit.com', reddit],
    [S3_ORIGIN, reddit],
    ['https://discord.com', discord],
    ['https://slack.com', slack],
    ['https://files.slack.com', slack],
    [LINKEDIN_WWW_ORIGIN, linkedin],
    [LINKEDIN_API_ORIGIN, linkedin],
  ] as const;
  return {
    env: {
      PUBLIC_URL,
      PLATFORM_ORIGINS: origins.map(([real, sim]) => `${real}=${sim.origin}`).join(','),
      ...oauthAppEnv(),
    },
  };
}, 'Acme', 'Beta');

// ---------------------------------------------------------------------------------------------
// Helpers

type Row = typeof integrations.$inferSelect;
interface Listed {
  id: string;
  identifier: string;
  name: string;
  profile: string | null;
  picture: string | null;
  refreshNeeded: boolean;
}
interface Series {
  label: string;
  percentageChange: number;
  data: { total: number | string; date: string }[];
}
type Route = { method: InjectOptions['method']; url: string; payload?: InjectOptions['payload'] };

const begin = (org: TestOrg, identifier: string, query = '') => call(t.app, org.apiKey, { method: 'GET', url: `/public/v1/social/${identifier}${query}` });

/** What the user's browser does: open the URL, approve at the platform, follow the redirect back. */
async function approveAndReturn(identifier: string, url: string) {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status, `authorisation page of ${identifier}: ${await res.clone().text()}`).toBe(302);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(`${PUBLIC_URL}/integrations/social/${identifier}/callback`);
  return t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` });
}

/** GET /social/{id} (with `?refresh=` to reconnect), approve, callback: the callback's answer. */
async function connect(org: TestOrg, identifier: string, refresh?: string) {
  const begun = await begin(org, identifier, refresh ? `?refresh=${refresh}` : '');
  expect(begun.statusCode, begun.body).toBe(200);
  return approveAndReturn(identifier, begun.json<{ url: string }>().url);
}

const rowsOf = (org: TestOrg, identifier: string) =>
  t.deps.database.db
    .select()
    .from(integrations)
    .where(and(eq(integrations.organizationId, org.id), eq(integrations.identifier, identifier)));

async function rowById(id: string): Promise<Row> {
  const [row] = await t.deps.database.db.select().from(integrations).where(eq(integrations.id, id));
  return row!;
}

const openCredentials = (row: Row) => JSON.parse(t.deps.secretBox.open(row.credentials!)) as Record<string, unknown>;

async function listed(org: TestOrg, identifier: string): Promise<Listed[]> {
  const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/integrations' });
  expect(res.statusCode).toBe(200);
  return res.json<Listed[]>().filter((i) => i.identifier === identifier);
}

/** The bearer token the app last presented to the simulator: the one the simulator issued it. */
function lastBearer(sim: Simulator): string {
  for (let i = sim.log.length - 1; i >= 0; i--) {
    const m = /^bearer (.+)$/i.exec(String(sim.log[i]!.headers.authorization ?? ''));
    if (m) return m[1]!;
  }
  throw new Error('the app never presented a bearer token to the simulator');
}

const trigger = (id: string, methodName: string, data: Record<string, unknown> = {}): Route => ({
  method: 'POST',
  url: `/public/v1/integration-trigger/${id}`,
  payload: { methodName, data },
});
const analytics = (id: string, days: number): Route => ({ method: 'GET', url: `/public/v1/analytics/${id}?date=${days}` });

// ---------------------------------------------------------------------------------------------
// The platforms

interface Tool {
  methodName: string;
  data?: Record<string, unknown>;
  /** the output, from the simulator's data */
  output: () => unknown;
}

interface PlatformSpec {
  id: string;
  metadata: PlatformMetadata;
  sim: () => Simulator;
  authorizePath: string;
  clientId: string;
  /** `picture` may be an asymmetric matcher */
  channel: { internalId: string; name: string; profile: string | null; picture: unknown };
  /** the platform issues an access token that the channel keeps (Discord keeps only the bot's guild) */
  keepsToken: boolean;
  tools: Tool[];
  /** checks the channel analytics (undefined: the platform has none, the route answers []) */
  analytics?: (series: Series[]) => void;
  /**
   * A route that reaches the platform, and the check of its answer; `n` makes each call distinct
   * (analytics are cached per channel and span). Undefined: no API route reaches this platform.
   */
  probe?: { route: (id: string, n: number) => Route; check: (body: unknown) => void };
  /** makes the access tokens expire (platforms that refresh) */
  expire?: () => void;
  /** the refresh token changes on every refresh */
  rotatesRefreshToken?: boolean;
  /** revokes the grant: access and refresh tokens */
  revoke: () => Promise<void> | void;
}

const toolProbe = (tool: Tool): PlatformSpec['probe'] => ({
  route: (id) => trigger(id, tool.methodName, tool.data),
  check: (body) => expect(body).toEqual({ output: tool.output() }),
});

const redditSubreddits: Tool = {
  methodName: 'subreddits',
  data: { word: 'type' },
  // r/typesecret matches too but is private: only public subreddits are offered.
  output: () => [{ title: 'TypeScript programming', name: '/r/typescript', id: reddit.state.subreddits.get('typescript')!.id }],
};
const discordChannels: Tool = {
  methodName: 'channels',
  // Text and announcement channels, in Discord's order; not the category nor the voice channel.
  output: () => [
    { id: '2200000000000000002', name: 'announcements' },
    { id: '2200000000000000001', name: 'general' },
  ],
};
const slackChannels: Tool = {
  methodName: 'channels',
  // By name; not the archived channel nor the private one the bot is not in.
  output: () => [
    { id: 'C0GENERAL', name: 'general' },
    { id: 'C0RANDOM', name: 'random' },
    { id: 'G0SECRET', name: 'secret' },
  ],
};
const linkedinPages: Tool = {
  methodName: 'pages',
  output: () => [
    { id: '2002', urn: 'urn:li:organization:2002', name: 'Difference Works', vanityName: 'difference-works', current: true },
    { id: '3003', urn: 'urn:li:organization:3003', name: 'Notes Ltd', vanityName: 'notes-ltd', current: false },
  ],
};

/** X's channel figures: today's totals of the user's public metrics. */
function checkXAnalytics(series: Series[]) {
  const today = new Date().toISOString().slice(0, 10);
  expect(series).toEqual([
    { label: 'Followers', percentageChange: 0, data: [{ total: X_USER.followers, date: today }] },
    { label: 'Following', percentageChange: 0, data: [{ total: X_USER.following, date: today }] },
    { label: 'Tweets', percentageChange: 0, data: [{ total: 0, date: today }] },
  ]);
}

/** The page's daily statistics set in the simulator (see `seedLinkedinStatistics`) over the last 7 complete days. */
function checkLinkedinPageAnalytics(series: Series[]) {
  const end = Math.floor(Date.now() / DAY) * DAY;
  const dates = Array.from({ length: 7 }, (_, i) => new Date(end - (7 - i) * DAY).toISOString().slice(0, 10));
  expect(series.map((s) => s.label)).toEqual(['New followers', 'Impressions', 'Unique impressions', 'Clicks', 'Likes', 'Comments', 'Shares']);
  for (const s of series) expect(s.data.map((d) => d.date)).toEqual(dates);
  const [followers, impressions] = series;
  expect(followers!.data.map((d) => d.total)).toEqual([0, 0, 0, 0, 0, 0, 5]);
  expect(impressions!.data.map((d) => d.total)).toEqual([10, 0, 0, 0, 0, 0, 40]);
  // The last three days (40) against the first three (10).
  expect(impressions!.percentageChange).toBe(300);
  expect(followers!.percentageChange).toBe(0);
}

function seedLinkedinStatistics() {
  const end = Math.floor(Date.now() / DAY) * DAY;
  const day = (n: number) => new Date(end - n * DAY).toISOString().slice(0, 10);
  linkedin.setDailyStatistics('2002', [
    { date: day(7), impressionCount: 10 },
    { date: day(1), impressionCount: 40, organicFollowerGain: 3, paidFollowerGain: 2 },
    // Today is not complete: not reported.
    { date: day(0), impressionCount: 999, organicFollowerGain: 99 },
  ]);
}

/**
 * X has no revocation hook: the grant is made useless the way a second client would, by spending
 * the refresh token (X rotates it, the old one is then refused) and expiring the access tokens.
 */
async function revokeX() {
  const row = (await rowsOf(acme, 'x'))[0]!;
  const { refreshToken } = openCredentials(row) as { refreshToken: string };
  const spent = await fetch(`${x.origin}/2/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${X_APP.clientId}:${X_APP.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
  });
  expect(spent.status).toBe(200);
  x.expireAccessTokens();
}

const PLATFORMS: PlatformSpec[] = [
  {
    id: 'x',
    metadata: xMetadata,
    sim: () => x,
    authorizePath: '/i/oauth2/authorize',
    clientId: X_APP.clientId,
    channel: { internalId: X_USER.id, name: X_USER.name, profile: X_USER.username, picture: X_USER.profile_image_url },
    keepsToken: true,
    tools: [],
    analytics: checkXAnalytics,
    probe: { route: (id, n) => analytics(id, n), check: (body) => checkXAnalytics(body as Series[]) },
    expire: () => x.expireAccessTokens(),
    rotatesRefreshToken: true,
    revoke: revokeX,
  },
  {
    id: 'reddit',
    metadata: redditMetadata,
    sim: () => reddit,
    authorizePath: '/api/v1/authorize',
    clientId: REDDIT_APP.clientId,
    channel: { internalId: '8xwlg', name: 'tidings_tester', profile: 'u/tidings_tester', picture: expect.stringContaining('profileIcon') },
    keepsToken: true,
    tools: [
      redditSubreddits,
      {
        methodName: 'restrictions',
        data: { subreddit: '/r/node' },
        output: () => ({
          subreddit: '/r/node',
          allow: ['self', 'link', 'media'],
          allow_images: true,
          is_flair_required: true,
          flairs: reddit.state.subreddits.get('node')!.flairs.map((f) => ({ id: f.id, name: f.text })),
        }),
      },
    ],
    probe: toolProbe(redditSubreddits),
    expire: () => reddit.expireAccessTokens(),
    revoke: () => {
      reddit.expireAccessTokens();
      reddit.revokeRefreshTokens();
    },
  },
  {
    id: 'discord',
    metadata: discordMetadata,
    sim: () => discord,
    authorizePath: '/oauth2/authorize',
    clientId: DISCORD.clientId,
    channel: { internalId: GUILD, name: 'Acme Guild', profile: null, picture: expect.stringContaining(`/icons/${GUILD}/a1b2c3d4`) },
    keepsToken: false,
    tools: [discordChannels],
    probe: toolProbe(discordChannels),
    revoke: () => discord.revokeTokens(),
  },
  {
    id: 'slack',
    metadata: slackMetadata,
    sim: () => slack,
    authorizePath: '/oauth/v2/authorize',
    clientId: SLACK_APP.clientId,
    channel: { internalId: 'T0ACME', name: 'Acme Corp', profile: 'acme', picture: 'https://avatars.slack-edge.com/acme_132.png' },
    keepsToken: true,
    tools: [slackChannels],
    probe: toolProbe(slackChannels),
    revoke: () => slack.revokeTokens(),
  },
  {
    id: 'linkedin',
    metadata: linkedinMetadata,
    sim: () => linkedin,
    authorizePath: '/oauth/v2/authorization',
    clientId: LINKEDIN_APP.clientId,
    channel: { internalId: ADA.sub, name: ADA.name, profile: null, picture: ADA.picture },
    keepsToken: true,
    tools: [],
    // No tools and no analytics: no API route reaches LinkedIn for a personal channel.
    probe: undefined,
    expire: () => linkedin.expireAccessTokens(),
    revoke: () => linkedin.revokeAccessTokens(),
  },
  {
    id: 'linkedin-page',
    metadata: linkedinPageMetadata,
    sim: () => linkedin,
    authorizePath: '/oauth/v2/authorization',
    clientId: LINKEDIN_PAGE_APP.clientId,
    channel: { internalId: '2002', name: 'Difference Works', profile: 'difference-works', picture: null },
    keepsToken: true,
    tools: [linkedinPages],
    analytics: checkLinkedinPageAnalytics,
    probe: toolProbe(linkedinPages),
    expire: () => linkedin.expireAccessTokens(),
    revoke: () => linkedin.revokeAccessTokens(),
  },
];

// ---------------------------------------------------------------------------------------------
// The tests

describe.each(PLATFORMS)('connecting and using $id through the API', (spec) => {
  let channelId: string;
  const row = () => rowById(channelId);

  it('GET /social/{id} answers the authorisation URL on the (rewritten) platform origin, with state and PKCE as the platform uses it', async () => {
    const res = await begin(acme, spec.id);
    expect(res.statusCode, res.body).toBe(200);
    const url = new URL(res.json<{ url: string }>().url);
    expect(url.origin).toBe(spec.sim().origin);
    expect(url.pathname).toBe(spec.authorizePath);
    expect(url.searchParams.get('client_id')).toBe(spec.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/integrations/social/${spec.id}/callback`);
    expect(url.searchParams.get('state')!.length).toBeGreaterThan(30);
    if (spec.metadata.oauth?.pkce) {
      expect(url.searchParams.get('code_challenge_method')).toBe('S256');
      expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    } else {
      expect(url.searchParams.has('code_challenge')).toBe(false);
    }
    if (spec.id === 'x') expect(spec.metadata.oauth?.pkce).toBe(true);
  });

  it('approving at the platform comes back to the callback, which shows a page and creates the channel with sealed credentials', async () => {
    const page = await connect(acme, spec.id);
    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain(`${spec.metadata.displayName} connected`);
    expect(page.body).toContain(spec.channel.name);

    const channels = await listed(acme, spec.id);
    expect(channels).toEqual([
      expect.objectContaining({ identifier: spec.id, name: spec.channel.name, profile: spec.channel.profile, picture: spec.channel.picture, refreshNeeded: false }),
    ]);
    channelId = channels[0]!.id;

    const stored = await row();
    expect(stored.internalId).toBe(spec.channel.internalId);
    const credentials = openCredentials(stored);
    if (spec.keepsToken) {
      // The token the channel keeps is the one the simulator issued (the app used it on the simulator) …
      expect(credentials.accessToken).toBe(lastBearer(spec.sim()));
      // … and it is stored sealed, like the refresh token.
      expect(stored.credentials).not.toContain(credentials.accessToken as string);
      if (typeof credentials.refreshToken === 'string') expect(stored.credentials).not.toContain(credentials.refreshToken);
    } else {
      // Discord: the user's token is dropped; the bot token of the deployment does the work.
      expect(credentials).toEqual({ guildId: GUILD });
      expect(stored.credentials).not.toContain(GUILD);
      expect(stored.credentials).not.toContain(DISCORD.botToken);
    }
    if (spec.id === 'reddit') expect(reddit.state.accessTokens.get(credentials.accessToken as string)?.userId).toBe('8xwlg');
    if (spec.id.startsWith('linkedin')) expect(linkedin.tokens.get(credentials.accessToken as string)).toMatchObject({ sub: ADA.sub, clientId: spec.clientId, revoked: false });
  });

  it('connecting the same account again (?refresh=) updates the same channel and clears refreshNeeded', async () => {
    await t.deps.database.db.update(integrations).set({ refreshNeeded: true, name: 'stale name' }).where(eq(integrations.id, channelId));
    const before = await row();
    const page = await connect(acme, spec.id, channelId);
    expect(page.statusCode, page.body).toBe(200);
    const rows = await rowsOf(acme, spec.id);
    expect(rows.map((r) => r.id)).toEqual([channelId]);
    expect(rows[0]).toMatchObject({ refreshNeeded: false, name: spec.channel.name });
    if (spec.keepsToken) {
      expect(rows[0]!.credentials).not.toBe(before.credentials);
      expect(openCredentials(rows[0]!).accessToken).toBe(lastBearer(spec.sim()));
    }
    expect((await listed(acme, spec.id))[0]).toMatchObject({ id: channelId, refreshNeeded: false });
  });

  it.runIf(spec.tools.length > 0)("POST /integration-trigger/{id} answers each tool's output from the platform", async () => {
    for (const tool of spec.tools) {
      const res = await call(t.app, acme.apiKey, trigger(channelId, tool.methodName, tool.data));
      expect(res.statusCode, `${tool.methodName}: ${res.body}`).toBe(200);
      expect(res.json()).toEqual({ output: tool.output() });
    }
  });

  it('an unknown tool is 404 NOT_FOUND', async () => {
    const err = expectError(await call(t.app, acme.apiKey, trigger(channelId, 'noSuchTool')), 404, 'NOT_FOUND');
    expect(err.message).toContain('noSuchTool');
  });

  it(spec.analytics ? 'GET /analytics/{id} answers the channel series' : 'GET /analytics/{id} answers [] (the platform reports none)', async () => {
    if (spec.id === 'linkedin-page') seedLinkedinStatistics();
    const res = await call(t.app, acme.apiKey, analytics(channelId, 7));
    expect(res.statusCode, res.body).toBe(200);
    const series = res.json<Series[]>();
    if (spec.analytics) {
      expect(series.length).toBeGreaterThan(0);
      for (const s of series) expect(s).toEqual({ label: expect.any(String), percentageChange: expect.any(Number), data: expect.any(Array) });
      spec.analytics(series);
    } else {
      expect(series).toEqual([]);
    }
  });

  it('another organisation gets 404 on the channel routes', async () => {
    const tool = spec.tools[0];
    await expectIsolated(t.app, trigger(channelId, tool?.methodName ?? 'noSuchTool', tool?.data ?? {}), acme, beta, { ownerCheck: tool !== undefined });
    await expectIsolated(t.app, analytics(channelId, 7), acme, beta);
    await expectIsolated(t.app, { method: 'GET', url: `/public/v1/social/${spec.id}?refresh=${channelId}` }, acme, beta);
  });

  it.runIf(spec.expire && spec.probe)('an expired access token is refreshed transparently and the new tokens are stored', async () => {
    const before = await row();
    const old = openCredentials(before);
    spec.expire!();
    const res = await call(t.app, acme.apiKey, spec.probe!.route(channelId, 14));
    expect(res.statusCode, res.body).toBe(200);
    spec.probe!.check(res.json());

    const after = await row();
    expect(after.refreshNeeded).toBe(false);
    expect(after.credentials).not.toBe(before.credentials);
    const next = openCredentials(after);
    expect(next.accessToken).not.toBe(old.accessToken);
    // The stored token is the one the route went on with.
    expect(next.accessToken).toBe(lastBearer(spec.sim()));
    if (spec.rotatesRefreshToken) expect(next.refreshToken).not.toBe(old.refreshToken);
    else expect(next.refreshToken).toBe(old.refreshToken);
  });

  it.runIf(spec.probe)('a revoked grant answers 409 CHANNEL_NEEDS_RECONNECT, marks the channel and notifies the organisation', async () => {
    await spec.revoke();
    const err = expectError(await call(t.app, acme.apiKey, spec.probe!.route(channelId, 30)), 409, 'CHANNEL_NEEDS_RECONNECT');
    expect(err.message).toContain(spec.metadata.displayName);
    expect((await listed(acme, spec.id))[0]).toMatchObject({ id: channelId, refreshNeeded: true });
    expect((await row()).refreshNeeded).toBe(true);

    const res = await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/notifications' });
    expect(res.statusCode).toBe(200);
    const { notifications } = res.json<{ notifications: { content: string }[] }>();
    expect(notifications.filter((n) => n.content.startsWith(`Channel ${spec.channel.name} (${spec.id}) must be reconnected`))).toHaveLength(1);
  });
});

describe('an OAuth platform without its app configured', () => {
  it('GET /social/reddit names both variables to set', async () => {
    const bare = await buildTestApp({ env: { PUBLIC_URL } });
    try {
      const org = await bare.createOrg('Bare');
      const err = expectError(await call(bare.app, org.apiKey, { method: 'GET', url: '/public/v1/social/reddit' }), 400, 'PLATFORM_APP_NOT_CONFIGURED');
      expect(err.message).toContain('REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET');
    } finally {
      await bare.close();
    }
  });
});
