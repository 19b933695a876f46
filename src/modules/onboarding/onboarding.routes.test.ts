import { beforeAll, describe, expect, it } from 'vitest';
import { signUp, type Browser } from '../../../test/browser.js';
import { createChannel } from '../../../test/factories.js';
import { call, expectError, manualClock, useTestApp, type TestOrg } from '../../../test/helpers.js';

type Steps = { steps: { id: string; done: boolean }[] };

/** GET /public/v1/onboarding: the checklist's facts, read through HTTP as the web app reads them. */
describe('GET /public/v1/onboarding', () => {
  const clock = manualClock();
  // open sign-up: each test signs up a new person with a new organisation
  const { t } = useTestApp({ clock, env: { SIGNUP: 'open' } });
  let owner: Browser;
  let other: TestOrg;
  let org: { id: string; name: string; apiKey: string };

  const steps = async (b: Browser) => {
    const res = await b.api('GET', '/public/v1/onboarding');
    expect(res.statusCode, res.body).toBe(200);
    return Object.fromEntries(res.json<Steps>().steps.map((s) => [s.id, s.done]));
  };

  beforeAll(async () => {
    owner = await signUp(t.app, { email: 'first@example.test', name: 'Fay', organization: 'First Hour' });
    const me = (await owner.api('GET', '/public/v1/me')).json<{ organization: { id: string; name: string } }>();
    org = { ...me.organization, apiKey: '' };
    // made after the first sign-up, which adopts organisations that have no member yet
    other = await t.createOrg('Other');
  });

  describe('happy', () => {
    it('a new organisation has done nothing; every step is answered, in order', async () => {
      const res = await owner.api('GET', '/public/v1/onboarding');
      expect(res.json()).toEqual({
        steps: [
          { id: 'connect-channel', done: false },
          { id: 'first-post', done: false },
          { id: 'invite-teammate', done: false },
          { id: 'api-key', done: false },
        ],
      });
    });

    it('each step turns done with its own fact, and only its own', async () => {
      const channel = await createChannel(t, org, 'bluesky', { name: 'Fay Sky' });
      expect(await steps(owner)).toEqual({ 'connect-channel': true, 'first-post': false, 'invite-teammate': false, 'api-key': false });

      const date = new Date(clock.now() + 86_400_000).toISOString();
      const post = await owner.api('POST', '/public/v1/posts', { type: 'draft', date, shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: 'Hello', image: [] }] }] });
      expect(post.statusCode, post.body).toBe(201);
      expect(await steps(owner)).toMatchObject({ 'first-post': true, 'invite-teammate': false, 'api-key': false });

      const invited = await owner.api('POST', '/public/v1/invitations', { role: 'member' });
      expect(invited.statusCode, invited.body).toBe(201);
      expect(await steps(owner)).toMatchObject({ 'invite-teammate': true, 'api-key': false });

      const key = await owner.api('POST', '/public/v1/api-keys', { name: 'script' });
      expect(key.statusCode, key.body).toBe(201);
      expect(await steps(owner)).toEqual({ 'connect-channel': true, 'first-post': true, 'invite-teammate': true, 'api-key': true });

    });

    it("another organisation's channels, posts, keys and members never count", async () => {
      // "Other" has an API key of its own (made with it) and gets a channel here
      await createChannel(t, other, 'bluesky');
      const fresh = await signUp(t.app, { email: 'fresh@example.test', organization: 'Fresh' });
      expect(await steps(fresh)).toEqual({ 'connect-channel': false, 'first-post': false, 'invite-teammate': false, 'api-key': false });
    });

    it('a revoked key, a revoked or expired invitation and a deleted post no longer count; a member who joined does', async () => {
      const b = await signUp(t.app, { email: 'second@example.test', organization: 'Second' });
      const channel = await createChannel(t, { id: (await b.api('GET', '/public/v1/me')).json<{ organization: { id: string } }>().organization.id, name: 'Second', apiKey: '' }, 'bluesky');
      const date = new Date(clock.now() + 86_400_000).toISOString();
      const [made] = (await b.api('POST', '/public/v1/posts', { type: 'draft', date, shortLink: false, tags: [], posts: [{ integration: { id: channel.id }, value: [{ content: 'x', image: [] }] }] })).json<{ postId: string }[]>();
      const key = (await b.api('POST', '/public/v1/api-keys', { name: 'k' })).json<{ key: { id: string } }>();
      const revoked = (await b.api('POST', '/public/v1/invitations', { role: 'member' })).json<{ invitation: { id: string } }>();
      expect(await steps(b)).toMatchObject({ 'first-post': true, 'invite-teammate': true, 'api-key': true });

      expect((await b.api('DELETE', `/public/v1/posts/${made!.postId}`)).statusCode).toBe(200);
      expect((await b.api('DELETE', `/public/v1/api-keys/${key.key.id}`)).statusCode).toBe(200);
      expect((await b.api('DELETE', `/public/v1/invitations/${revoked.invitation.id}`)).statusCode).toBe(200);
      expect(await steps(b)).toEqual({ 'connect-channel': true, 'first-post': false, 'invite-teammate': false, 'api-key': false });

      // an invitation nobody answered in time is not a teammate
      const open = (await b.api('POST', '/public/v1/invitations', { role: 'member' })).json<{ link: string; invitation: { expiresAt: string } }>();
      expect((await steps(b))['invite-teammate']).toBe(true);
      clock.set(new Date(open.invitation.expiresAt).getTime() + 1);
      expect((await steps(b))['invite-teammate']).toBe(false);

      // someone who joined through an invitation is
      const again = (await b.api('POST', '/public/v1/invitations', { role: 'member' })).json<{ link: string }>();
      const token = new URL(again.link).pathname.split('/').at(-1)!;
      const mate = await signUp(t.app, { email: 'mate@example.test', invite: token });
      expect((await steps(mate))['invite-teammate']).toBe(true);
      expect(await steps(mate)).toEqual(await steps(b));
    });
  });

  describe('security', () => {
    it('API keys get 403 (a web-app route); no credentials get 401', async () => {
      expectError(await call(t.app, other.apiKey, { method: 'GET', url: '/public/v1/onboarding' }), 403, 'FORBIDDEN');
      expectError(await call(t.app, undefined, { method: 'GET', url: '/public/v1/onboarding' }), 401, 'AUTH_MISSING');
    });
  });
});
