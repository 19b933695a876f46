import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { platformFailure, publicPng, runSimulatorContract } from '../common/unit.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishItem } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, listmonkError } from './errors.js';
import { createListmonkAdapter, preheader } from './index.js';
import { API_USER, BETA, DOWN_INSTANCE, INSTANCE, listmonkSimulator, NEWSLETTER, originsFor, withListmonk, type TestCtx } from './listmonk.testkit.js';

const adapter = createListmonkAdapter();
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const creds = { instanceUrl: INSTANCE, username: API_USER.username, token: API_USER.token };

/** Every campaign needs a subject and a list: the contract's generic posts get them. Nothing else is changed. */
const asCampaigns: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { subject: 'Contract campaign', preview: '', list: String(NEWSLETTER), ...input.settings } }, ctx),
};

// A campaign has no replies (`thread.supported: false`), so the contract's thread case cannot apply.
runSimulatorContract({ name: 'listmonk', adapter: asCampaigns, errorsIn200: false, start: () => listmonkSimulator(), origins: originsFor, connect: creds });

const connect = (ctx: TestCtx) => adapter.connectWithCredentials!(creds, ctx);
const publish = (ctx: TestCtx, account: ConnectedAccount, content: string, settings: Record<string, unknown>, media: PublishItem['media'] = []) =>
  adapter.publish({ item: { content, media }, settings, idempotencyKey: content }, { ...ctx, credentials: account.credentials });
const PICTURE = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from('a picture for the listmonk tests')]);
const picture = (id: string, alt: string | null = null) => publicPng(id, PICTURE.length, alt);

describe('listmonk: connecting', () => {
  it('verifies the API user with HTTP Basic, names the channel after the site, keeps the instance URL without its trailing slash', async () => {
    await withListmonk(async (sim, ctx) => {
      const account = await adapter.connectWithCredentials!({ ...creds, instanceUrl: `${INSTANCE}/` }, ctx);
      expect(account).toMatchObject({ internalId: `${INSTANCE}#tidings`, name: 'Acme Newsletter', profile: 'tidings@lists.example.com', expiresAt: null });
      expect(account.credentials).toEqual(creds);
      const lists = sim.log.find((r) => r.path.startsWith('/api/lists'))!;
      expect(lists.headers.authorization).toBe(`Basic ${Buffer.from(`${API_USER.username}:${API_USER.token}`).toString('base64')}`);
      // A role that may not read the settings still connects, named after the host.
      const plain = await adapter.connectWithCredentials!({ instanceUrl: INSTANCE, username: 'nosettings', token: 'tok-nosettings' }, ctx);
      expect(plain.name).toBe('lists.example.com');
    });
  });

  it('refuses a wrong token, a user whose role cannot read lists, an address that answers nothing and one that is not listmonk, each on its field', async () => {
    await withListmonk(async (_sim, ctx) => {
      const refused = async (input: Record<string, string>) => {
        const e = await platformFailure(adapter.connectWithCredentials!(input, ctx));
        return { kind: e.kind, field: e.details.field, message: e.message };
      };
      expect(await refused({ ...creds, token: 'wrong' })).toEqual({ kind: 'rejected', field: 'token', message: 'listmonk refused the API user and token: invalid API credentials' });
      expect(await refused({ ...creds, username: 'viewer', token: 'tok-viewer' })).toEqual({
        kind: 'rejected',
        field: 'username',
        message: "The API user's role may not read lists: permission denied: lists:get_all",
      });
      const down = await refused({ ...creds, instanceUrl: DOWN_INSTANCE });
      expect({ kind: down.kind, field: down.field }).toEqual({ kind: 'rejected', field: 'instanceUrl' });
      expect(down.message).toMatch(/^listmonk could not be reached at https:\/\/down\.example\.com: /);
      const elsewhere = await refused({ ...creds, instanceUrl: `${INSTANCE}/not-here` });
      expect({ kind: elsewhere.kind, field: elsewhere.field }).toEqual({ kind: 'rejected', field: 'instanceUrl' });
      expect(elsewhere.message).toMatch(/does not answer as a listmonk instance \(HTTP 404/);
    });
  });

  it('credentials revoked after connecting ask for a reconnect', async () => {
    await withListmonk(async (sim, ctx) => {
      const account = await connect(ctx);
      sim.addUser({ ...API_USER, token: 'rotated', permissions: 'super' });
      const err = await platformFailure(publish(ctx, account, '<p>x</p>', { subject: 'S', preview: '', list: String(NEWSLETTER) }));
      expect({ kind: err.kind, status: err.details.status, message: err.message }).toEqual({ kind: 'reconnect_required', status: 403, message: 'invalid API credentials' });
    });
  });
});

describe('listmonk: campaigns', () => {
  it('creates the campaign with the settings, the picture uploaded to listmonk’s media and shown by its URL, then starts it', async () => {
    await withListmonk(async (sim, ctx) => {
      const account = await connect(ctx);
      ctx.media.set('p1', new Blob([PICTURE], { type: 'image/png' }));
      const r = await publish(ctx, account, '<p>Hello <strong>readers</strong></p>', { subject: 'June news', preview: 'What we shipped in June', list: `${NEWSLETTER}, ${BETA}`, template: '2' }, [
        picture('p1', 'The "team"'),
      ]);
      expect(r).toEqual({ status: 'published', id: '1', url: `${INSTANCE}/admin/campaigns/1` });
      const [uploaded] = sim.media;
      expect(uploaded).toMatchObject({ filename: 'p1.png', sha256: sha(PICTURE), mimeType: 'image/png', url: `${INSTANCE}/uploads/p1.png` });
      const c = sim.campaigns[0]!;
      expect(c).toMatchObject({ name: 'June news', subject: 'June news', lists: [NEWSLETTER, BETA], type: 'regular', contentType: 'html', templateId: 2, headers: [], status: 'running' });
      expect(c.body).toBe(`${preheader('What we shipped in June')}<p>Hello <strong>readers</strong></p><p><img src="${INSTANCE}/uploads/p1.png" alt="The &quot;team&quot;" style="max-width:100%;height:auto"></p>`);
      expect(c.body).toContain('display:none');
      expect(c.altbody).toBe('What we shipped in June\n\nHello readers');
      expect(c.images.map((i) => i.sha256)).toEqual([sha(PICTURE)]);
      const create = sim.log.find((l) => l.method === 'POST' && l.path === '/api/campaigns')!;
      expect(create.body).toMatchObject({ template_id: 2, lists: [NEWSLETTER, BETA], content_type: 'html', type: 'regular' });
      expect(sim.log.filter((l) => l.method === 'PUT').map((l) => [l.path, l.body])).toEqual([['/api/campaigns/1/status', { status: 'running' }]]);
    });
  });

  it('an empty preview adds no preheader; no template uses the instance default; a transactional template is refused with listmonk’s message', async () => {
    await withListmonk(async (sim, ctx) => {
      const account = await connect(ctx);
      await publish(ctx, account, '<p>plain</p>', { subject: 'Plain', preview: '', list: String(NEWSLETTER) });
      expect(sim.campaigns[0]).toMatchObject({ body: '<p>plain</p>', templateId: 1, altbody: 'plain' });
      const err = await platformFailure(publish(ctx, account, '<p>x</p>', { subject: 'Tx', preview: '', list: String(NEWSLETTER), template: '3' }));
      expect({ kind: err.kind, status: err.details.status, message: err.message }).toEqual({ kind: 'rejected', status: 400, message: 'Invalid template ID.' });
      const unknownList = await platformFailure(publish(ctx, account, '<p>x</p>', { subject: 'Nowhere', preview: '', list: '99' }));
      expect(unknownList.message).toBe('Invalid list IDs.');
      expect(sim.campaigns).toHaveLength(1);
    });
  });
});

describe('listmonk: tools, reconciliation and analytics', () => {
  it('the list and templates tools', async () => {
    await withListmonk(async (_sim, ctx) => {
      const c = { ...ctx, credentials: (await connect(ctx)).credentials };
      expect(await adapter.runTool!('list', {}, c)).toEqual([
        { id: '3', name: 'Newsletter', subscribers: 120 },
        { id: '5', name: 'Beta testers', subscribers: 14 },
      ]);
      expect(await adapter.runTool!('templates', {}, c)).toEqual([
        { id: '1', name: 'Default campaign template', isDefault: true },
        { id: '2', name: 'Default archive template', isDefault: false },
      ]);
      expect((await platformFailure(adapter.runTool!('subscribers', {}, c))).kind).toBe('unsupported');
    });
  });

  it('findRecent lists started campaigns newest first, and leaves out drafts that were never mailed', async () => {
    await withListmonk(async (sim, ctx) => {
      const account = await connect(ctx);
      const c = { ...ctx, credentials: account.credentials };
      await publish(ctx, account, '<p>first</p>', { subject: 'One', preview: '', list: '3' });
      // The start fails after the draft was made: the draft stays, unsent.
      sim.inject({ path: /\/status$/, status: 502, body: { message: 'Bad gateway' } });
      expect((await platformFailure(publish(ctx, account, '<p>stuck</p>', { subject: 'Two', preview: '', list: '3' }))).kind).toBe('transient');
      await publish(ctx, account, '<p>third</p>', { subject: 'Three', preview: '', list: '3' });
      const found = await adapter.findRecent!({ since: new Date(Date.now() - 60_000), limit: 10 }, c);
      expect(found.map((f) => [f.id, f.content, f.url])).toEqual([
        ['3', 'third', `${INSTANCE}/admin/campaigns/3`],
        ['1', 'first', `${INSTANCE}/admin/campaigns/1`],
      ]);
      expect(sim.campaigns.map((x) => x.status)).toEqual(['running', 'draft', 'running']);
      expect(await adapter.findRecent!({ since: new Date(Date.now() + 60_000), limit: 10 }, c)).toEqual([]);
      expect(await adapter.findRecent!({ since: new Date(0), limit: 10, replyTo: { id: '1', rootId: '1' } }, c)).toEqual([]);
    });
  });

  it('post analytics: daily views and clicks of the campaign over the days asked', async () => {
    const now = Date.UTC(2026, 5, 10, 15);
    await withListmonk(
      async (sim, ctx) => {
        const account = await connect(ctx);
        sim.setAnalytics(7, 'views', [
          { date: '2026-06-01', count: 100 },
          { date: '2026-06-09', count: 40 },
          { date: '2026-06-10', count: 12 },
        ]);
        sim.setAnalytics(7, 'clicks', [{ date: '2026-06-10', count: 3 }]);
        const series = await adapter.postAnalytics!('7', 3, { ...ctx, credentials: account.credentials });
        expect(series.map((s) => [s.label, s.data])).toEqual([
          [
            'Views',
            [
              { date: '2026-06-08', total: 0 },
              { date: '2026-06-09', total: 40 },
              { date: '2026-06-10', total: 12 },
            ],
          ],
          [
            'Clicks',
            [
              { date: '2026-06-08', total: 0 },
              { date: '2026-06-09', total: 0 },
              { date: '2026-06-10', total: 3 },
            ],
          ],
        ]);
        expect(sim.log.find((l) => l.path.startsWith('/api/campaigns/analytics/views'))!.path).toBe('/api/campaigns/analytics/views?id=7&from=2026-06-08&to=2026-06-10');
      },
      { now: () => now },
    );
  });
});

describe('listmonk: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
  it('classifies listmonk’s answers', () => {
    expect(listmonkError(res(403, { message: 'invalid API credentials' }))).toMatchObject({ kind: 'reconnect_required', details: { field: 'token' } });
    expect(listmonkError(res(401, 'Unauthorized'))?.kind).toBe('reconnect_required');
    expect(listmonkError(res(403, { message: 'permission denied: campaigns:manage_all' }))).toMatchObject({ kind: 'rejected', message: 'permission denied: campaigns:manage_all' });
    expect(listmonkError(res(429, { message: 'slow down' }))?.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(listmonkError(res(503, '<html>maintenance</html>'))?.kind).toBe('transient');
    // A 200 that is not listmonk's `{ data }` (a proxy's login page) is not a success.
    expect(listmonkError(res(200, '<html><form>Sign in</form></html>'))?.kind).toBe('rejected');
    expect(listmonkError(res(200, { data: { id: 1 } }))).toBeUndefined();
  });
});
