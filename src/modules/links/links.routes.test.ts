import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp } from '../../../test/browser.js';
import { buildTestApp, call, expectError, type TestApp, type TestOrg } from '../../../test/helpers.js';

/** The short-link settings and links routes: validation naming fields, defaults, the key kept, organisations apart. */
describe('short-link routes (issue 32)', () => {
  let t: TestApp;
  let org: TestOrg;
  let other: TestOrg;
  beforeAll(async () => {
    t = await buildTestApp({ env: { SHORT_LINK_BASE_URL: 'https://tdn.gs/' } });
    org = await t.createOrg('Acme');
    other = await t.createOrg('Other');
  });
  afterAll(async () => t?.close());

  const put = (o: TestOrg, payload: unknown) => call(t.app, o.apiKey, { method: 'PUT', url: '/public/v1/short-links/settings', payload: payload as object });
  const fieldsOf = (res: { json<T>(): T }) => res.json<{ fields: { path: string; message: string }[] }>().fields.map((f) => f.path);

  it('answers the built-in shortener by default, on SHORT_LINK_BASE_URL, with the length a link takes', async () => {
    const res = await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/short-links/settings' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      provider: 'builtin',
      domain: null,
      apiUrl: null,
      utmTemplate: null,
      hasApiKey: false,
      builtinBaseUrl: 'https://tdn.gs/s/',
      shortLinkLength: 'https://tdn.gs/s/'.length + 7,
      providers: [
        { id: 'builtin', name: 'Built in', needsApiKey: false, needsDomain: false, needsApiUrl: false },
        { id: 'dub', name: 'Dub', needsApiKey: true, needsDomain: false, needsApiUrl: false },
        { id: 'shortio', name: 'Short.io', needsApiKey: true, needsDomain: true, needsApiUrl: false },
        { id: 'kutt', name: 'Kutt', needsApiKey: true, needsDomain: false, needsApiUrl: false },
      ],
    });
  });

  it('names the field of every refusal', async () => {
    expect(fieldsOf(await put(org, { provider: 'bitly' }))).toEqual(['provider']);
    expect(fieldsOf(await put(org, { provider: 'builtin', utmTemplate: 'utm_source={network}' }))).toEqual(['utmTemplate']);
    expect(fieldsOf(await put(org, { provider: 'builtin', utmTemplate: 'no pairs here' }))).toEqual(['utmTemplate']);
    expect(fieldsOf(await put(org, { provider: 'dub' }))).toEqual(['apiKey']);
    expect(fieldsOf(await put(org, { provider: 'shortio', apiKey: 'sk_x' }))).toEqual(['domain']);
    expect(fieldsOf(await put(org, { provider: 'shortio', apiKey: 'sk_x', domain: 'not a domain' }))).toEqual(['domain']);
    expect(fieldsOf(await put(org, { provider: 'kutt', apiKey: 'k', apiUrl: 'ftp://kutt.example' }))).toEqual(['apiUrl']);
    const extra = await put(org, { provider: 'builtin', extra: 1 });
    expect(fieldsOf(extra)).toEqual(['body']);
    expect(extra.json<{ message: string }>().message).toContain('extra');
    for (const bad of [{ provider: 'bitly' }, { provider: 'dub' }]) expectError(await put(org, bad), 400, 'VALIDATION_FAILED');
  });

  it('refuses a private Kutt address unless ALLOW_PRIVATE_TARGETS, without storing anything', async () => {
    const res = await put(org, { provider: 'kutt', apiKey: 'kutt_key', apiUrl: 'http://127.0.0.1:9/' });
    expectError(res, 422, 'SHORTENER_REJECTED');
    expect(res.json<{ message: string; fields: { path: string }[] }>()).toMatchObject({ message: 'Kutt: 127.0.0.1 is a private or reserved address, which is not allowed', fields: [{ path: 'apiUrl' }] });
    expect((await call(t.app, org.apiKey, { method: 'GET', url: '/public/v1/short-links/settings' })).json()).toMatchObject({ provider: 'builtin', hasApiKey: false });
  });

  it('keeps a UTM template per organisation', async () => {
    const saved = await put(org, { provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ provider: 'builtin', utmTemplate: 'utm_source={platform}&utm_medium=social' });
    // a later change that leaves the template out keeps it; null removes it
    expect((await put(org, { provider: 'builtin' })).json()).toMatchObject({ utmTemplate: 'utm_source={platform}&utm_medium=social' });
    expect((await call(t.app, other.apiKey, { method: 'GET', url: '/public/v1/short-links/settings' })).json()).toMatchObject({ utmTemplate: null });
    expect((await put(org, { provider: 'builtin', utmTemplate: null })).json()).toMatchObject({ utmTemplate: null });
  });

  it("lists a post's links only in its organisation", async () => {
    for (const url of ['/public/v1/posts/not-a-uuid/links', '/public/v1/posts/00000000-0000-4000-8000-000000000000/links']) {
      expectError(await call(t.app, org.apiKey, { method: 'GET', url }), 404, 'NOT_FOUND');
    }
  });

  it('lets owners and admins change the settings; members and contributors read them', async () => {
    const owner = await signUp(t.app, { email: 'olga@example.test', name: 'Olga', organization: 'Roles' });
    const invite = async (email: string, role: string) => {
      const { link } = (await owner.api('POST', '/public/v1/invitations', { email, role })).json<{ link: string }>();
      return signUp(t.app, { email, name: role, invite: link.split('/').at(-1)! });
    };
    const member = await invite('mia@example.test', 'member');
    const contributor = await invite('carl@example.test', 'contributor');
    const change = { provider: 'builtin', utmTemplate: 'utm_source={platform}' };
    for (const who of [member, contributor]) {
      expect((await who.api('GET', '/public/v1/short-links/settings')).statusCode).toBe(200);
      expectError(await who.api('PUT', '/public/v1/short-links/settings', change), 403, 'FORBIDDEN');
    }
    const saved = await owner.api('PUT', '/public/v1/short-links/settings', change);
    expect(saved.statusCode, saved.body).toBe(200);
    const log = (await owner.api('GET', '/public/v1/activity?action=short_links.settings_changed')).json<{ entries: { actor: { name: string }; details: Record<string, unknown> }[] }>();
    expect(log.entries).toContainEqual(
      expect.objectContaining({ actor: expect.objectContaining({ name: 'Olga' }), details: { provider: 'builtin', domain: null, utmTemplate: 'utm_source={platform}', providerAccountChanged: false } }),
    );
  });

  it('answers 404 for an unknown or malformed short code, with nothing cached', async () => {
    for (const url of ['/s/abcdefg', '/s/../../etc', '/s/a%20b']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
    }
  });
});
