import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { contractMediaHost, contractMediaOrigins, platformFailure, publicPng, runSimulatorContract, type ContractMediaHost } from '../common/unit.testkit.js';
import { CONTRACT_PNG } from '../common/media-pull.testkit.js';
import { published } from '../common/platform.testkit.js';
import type { ConnectedAccount, PlatformAdapter, PublishItem } from '../platform.js';
import { DEFAULT_RETRY_AFTER_SECONDS, mediumError } from './errors.js';
import { createMediumAdapter, mediumPostBody } from './index.js';
import { pictureUrls } from './medium.simulator.js';
import { ABOUT, DEVELOPERS, MEDIUM_TOKEN, mediumSimulator, originsFor, withMedium, WRITER, type TestCtx } from './medium.testkit.js';

const adapter = createMediumAdapter();

// The contract's 1×1 PNG (test/platform-contract.ts), served where the contract's media item says it lives.
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Every Medium story needs a title: the contract's generic posts get one. Nothing else is changed. */
const asStories: PlatformAdapter = {
  ...adapter,
  publish: (input, ctx) => adapter.publish({ ...input, settings: { title: 'A contract story', subtitle: 'From the shared suite', ...input.settings } }, ctx),
};

// Medium has no replies or comments an app can post (`thread.supported: false`), so the contract's
// thread case cannot apply.
runSimulatorContract({ name: 'medium', adapter: asStories, errorsIn200: false, host: contractMediaHost, start: (host: ContractMediaHost) => mediumSimulator({ mediaOrigins: contractMediaOrigins(host) }), origins: originsFor, connect: { token: MEDIUM_TOKEN } });

// Another PNG than the contract's (the simulator checks the signature), so the right file is seen to be fetched.
const PIC = Buffer.concat([CONTRACT_PNG.subarray(0, 8), Buffer.from('a picture for the medium tests')]);
const picture = (id: string, alt: string | null = null) => publicPng(id, PIC.length, alt);
const connect = (ctx: TestCtx) => adapter.connectWithCredentials!({ token: MEDIUM_TOKEN }, ctx);
const publish = (ctx: TestCtx, account: ConnectedAccount, content: string, settings: Record<string, unknown>, media: PublishItem['media'] = []) =>
  adapter.publish({ item: { content, media }, settings, idempotencyKey: content }, { ...ctx, credentials: account.credentials });

describe('medium: connecting', () => {
  it('verifies the token with GET /v1/me and keeps the user id; a wrong token is refused on the token field', async () => {
    await withMedium(new Map(), async (sim, ctx) => {
      const account = await connect(ctx);
      expect(account).toMatchObject({ internalId: WRITER.id, name: 'Acme Writes', profile: 'acmewrites', picture: WRITER.imageUrl, expiresAt: null });
      expect(account.credentials).toEqual({ token: MEDIUM_TOKEN, userId: WRITER.id, username: 'acmewrites' });
      const me = sim.log.find((r) => r.path === '/v1/me')!;
      expect(me.headers.authorization).toBe(`Bearer ${MEDIUM_TOKEN}`);

      const wrong = await platformFailure(adapter.connectWithCredentials!({ token: '0000deadbeef' }, ctx));
      expect({ kind: wrong.kind, field: wrong.details.field, message: wrong.message }).toEqual({
        kind: 'rejected',
        field: 'token',
        message: 'Medium refused the integration token: Token was invalid.',
      });
    });
  });

  it('a token revoked after connecting asks for a reconnect (tokens cannot be refreshed)', async () => {
    await withMedium(new Map(), async (sim, ctx) => {
      const account = await connect(ctx);
      sim.revokeToken(MEDIUM_TOKEN);
      const err = await platformFailure(publish(ctx, account, '<p>x</p>', { title: 'After revoking' }));
      expect({ kind: err.kind, code: err.details.platformCode }).toEqual({ kind: 'reconnect_required', code: '6003' });
    });
  });
});

describe('medium: stories', () => {
  it('sends Markdown by default: title and subtitle on top, the picture pulled from its public URL, tags, canonical URL, status', async () => {
    await withMedium(new Map([['/media/2026/01/p1.png', PIC]]), async (sim, ctx, host) => {
      const account = await connect(ctx);
      const r = published(
        await publish(
          ctx,
          account,
          '<p>Hello <strong>world</strong> and <a href="https://ex.com">a link</a></p><ul><li>one</li></ul>',
          {
            title: 'Why we self-host',
            subtitle: 'Owning the scheduler',
            canonical: 'https://blog.example.com/self-host',
            tags: [
              { value: 'self-hosting', label: 'Self Hosting' },
              { value: 'open-source', label: 'Open Source' },
            ],
            notifyFollowers: false,
          },
          [picture('p1', 'A server rack')],
        ),
      );
      const post = sim.posts.find((p) => p.id === r.id)!;
      expect(r.url).toBe(`https://medium.com/@acmewrites/why-we-self-host-${r.id}`);
      expect(post).toMatchObject({
        authorId: WRITER.id,
        title: 'Why we self-host',
        contentFormat: 'markdown',
        tags: ['self-hosting', 'open-source'],
        canonicalUrl: 'https://blog.example.com/self-host',
        publishStatus: 'public',
        notifyFollowers: false,
      });
      expect(post.content).toBe(
        [
          '# Why we self-host',
          '',
          '## Owning the scheduler',
          '',
          'Hello **world** and [a link](https://ex.com)',
          '',
          '-   one',
          '',
          '![A server rack](https://tidings.example/media/2026/01/p1.png)',
        ].join('\n'),
      );
      expect(post.images).toEqual([{ url: 'https://tidings.example/media/2026/01/p1.png', sha256: sha(PIC), size: PIC.length, mimeType: 'image/png' }]);
      expect(host.hits).toEqual(['/media/2026/01/p1.png']);
      expect(sim.log.find((l) => l.method === 'POST')!.path).toBe(`/v1/users/${WRITER.id}/posts`);
    });
  });

  it('sends HTML restricted to the tags Medium takes when contentFormat is html', async () => {
    await withMedium(new Map([['/media/2026/01/p2.png', PIC]]), async (sim, ctx) => {
      const account = await connect(ctx);
      const r = published(
        await publish(
          ctx,
          account,
          '<p>Hello <b>bold</b> <span style="color:red">plain</span> <s>old</s></p><h5>Small</h5><script>alert(1)</script>',
          { title: 'Tom & Jerry <3', contentFormat: 'html', publishStatus: 'unlisted' },
          [picture('p2', 'a "quoted" alt')],
        ),
      );
      const post = sim.posts.find((p) => p.id === r.id)!;
      expect(post.content).toBe(
        '<h1>Tom &amp; Jerry &lt;3</h1><p>Hello <strong>bold</strong> plain old</p><h4>Small</h4>' +
          '<figure><img src="https://tidings.example/media/2026/01/p2.png" alt="a &quot;quoted&quot; alt"></figure>',
      );
      expect({ format: post.contentFormat, status: post.publishStatus, shas: post.images.map((i) => i.sha256) }).toEqual({ format: 'html', status: 'unlisted', shas: [sha(PIC)] });
    });
  });

  it('posts into a publication: a draft by default, public where the account is an editor, refused where it is only a writer', async () => {
    await withMedium(new Map(), async (sim, ctx) => {
      const account = await connect(ctx);
      const draft = published(await publish(ctx, account, '<p>pitch</p>', { title: 'A pitch', publication: ABOUT }));
      expect(sim.posts.find((p) => p.id === draft.id)).toMatchObject({ publicationId: ABOUT, publishStatus: 'draft' });
      expect(draft.url).toBe(`https://medium.com/about/a-pitch-${draft.id}`);
      const pub = published(await publish(ctx, account, '<p>news</p>', { title: 'News', publication: DEVELOPERS, publishStatus: 'public' }));
      expect(sim.posts.find((p) => p.id === pub.id)).toMatchObject({ publicationId: DEVELOPERS, publishStatus: 'public' });
      const refused = await platformFailure(publish(ctx, account, '<p>x</p>', { title: 'Too bold', publication: ABOUT, publishStatus: 'public' }));
      expect({ kind: refused.kind, status: refused.details.status, message: refused.message }).toEqual({
        kind: 'rejected',
        status: 403,
        message: 'Writers can only submit drafts to this publication.',
      });
    });
  });

  it('a picture Medium cannot fetch refuses the story with Medium’s message; a media item without a public URL is refused before sending', async () => {
    await withMedium(new Map(), async (sim, ctx) => {
      const account = await connect(ctx);
      const missing = await platformFailure(publish(ctx, account, '<p>x</p>', { title: 'Broken' }, [picture('gone')]));
      expect({ kind: missing.kind, message: missing.message }).toEqual({ kind: 'rejected', message: 'Could not fetch image: https://tidings.example/media/2026/01/gone.png (HTTP 404)' });
      const local = await platformFailure(publish(ctx, account, '<p>x</p>', { title: 'Local' }, [{ ...picture('l'), path: '/media/l.png' }]));
      expect(local.message).toMatch(/public URL/);
      expect(sim.posts).toHaveLength(0);
    });
  });

  it('leaves out an unresolved (post:…) canonical placeholder, and refuses a story without a title', () => {
    const body = mediumPostBody({ content: '<p>x</p>', media: [] }, { title: 'T', canonical: '(post:abc)' });
    expect(body).not.toHaveProperty('canonicalUrl');
    expect(body).toMatchObject({ title: 'T', contentFormat: 'markdown', publishStatus: 'public' });
    expect(() => mediumPostBody({ content: '<p>x</p>', media: [] }, {})).toThrow(/needs a title/);
  });
});

describe('medium: the publications tool', () => {
  it('lists the publications the account writes or edits for', async () => {
    await withMedium(new Map(), async (_sim, ctx) => {
      const account = await connect(ctx);
      const out = await adapter.runTool!('publications', {}, { ...ctx, credentials: account.credentials });
      expect(out).toEqual([
        { id: DEVELOPERS, name: 'Developers', url: 'https://medium.com/developers', picture: '' },
        { id: ABOUT, name: 'About Medium', url: 'https://medium.com/about', picture: '' },
      ]);
      expect((await platformFailure(adapter.runTool!('boards', {}, { ...ctx, credentials: account.credentials }))).kind).toBe('unsupported');
    });
  });
});

describe('medium: errors', () => {
  const res = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, headers, body });
  it('classifies Medium’s codes and statuses, reading the body first', () => {
    expect(mediumError(res(401, { errors: [{ message: 'Application not found', code: 6005 }] }))).toMatchObject({ kind: 'reconnect_required', details: { platformCode: '6005', field: 'token' } });
    expect(mediumError(res(400, { errors: [{ message: 'User not found', code: 6004 }] }))?.kind).toBe('reconnect_required');
    expect(mediumError(res(200, { errors: [{ message: 'Content is required.', code: 6026 }] }))).toMatchObject({ kind: 'rejected', message: 'Content is required.' });
    expect(mediumError(res(429, { errors: [{ message: 'Too many requests.', code: 6029 }] }))?.details.retryAfterSeconds).toBe(DEFAULT_RETRY_AFTER_SECONDS);
    expect(mediumError(res(429, { errors: [{ message: 'Slow down', code: 6029 }] }, { 'retry-after': '12' }))?.details.retryAfterSeconds).toBe(12);
    expect(mediumError(res(502, '<html>Bad gateway</html>'))?.kind).toBe('transient');
    expect(mediumError(res(201, { data: { id: 'x' } }))).toBeUndefined();
  });

  it('the simulator finds pictures the way Medium’s importer does, in both formats', () => {
    expect(pictureUrls('<p>a</p><figure><img src="https://x.example/a.png?x=1&amp;y=2" alt=""></figure>', 'html')).toEqual(['https://x.example/a.png?x=1&y=2']);
    expect(pictureUrls('text ![alt](https://x.example/b.png) and ![](https://x.example/c.gif "t")', 'markdown')).toEqual(['https://x.example/b.png', 'https://x.example/c.gif']);
  });
});
