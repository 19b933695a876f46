import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP, linkedinSimulator } from '../../platforms/linkedin/linkedin.testkit.js';
import { LINKEDIN_API_ORIGIN, LINKEDIN_WWW_ORIGIN, type LinkedinSimulator } from '../../platforms/linkedin/linkedin.simulator.js';
import { call, expectError, expectIsolated, useTestApp } from '../../../test/helpers.js';

describe('choosing which LinkedIn page a channel posts as (PUT /integrations/{id}/account)', () => {
  let sim: LinkedinSimulator;
  let channelId: string;
  afterAll(async () => {
    await sim.close();
  });

  const { t, orgs: { acme, beta } } = useTestApp(async () => {
    sim = await linkedinSimulator();
    return {
      env: {
        PLATFORM_ORIGINS: `${LINKEDIN_API_ORIGIN}=${sim.origin},${LINKEDIN_WWW_ORIGIN}=${sim.origin}`,
        PUBLIC_URL: 'https://tidings.example',
        LINKEDIN_PAGE_CLIENT_ID: APP.clientId,
        LINKEDIN_PAGE_CLIENT_SECRET: APP.clientSecret,
        LINKEDIN_CLIENT_ID: APP.clientId,
        LINKEDIN_CLIENT_SECRET: APP.clientSecret,
      },
    };
  }, 'Acme', 'Beta');

  beforeAll(async () => {
    const { url } = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/social/linkedin-page' })).json<{ url: string }>();
    const back = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    expect((await t.app.inject({ method: 'GET', url: `${back.pathname}${back.search}` })).statusCode).toBe(200);
    channelId = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ id: string }[]>()[0]!.id;
  });

  it('connects the first administered page; the pages tool lists all of them', async () => {
    const list = (await call(t.app, acme.apiKey, { method: 'GET', url: '/public/v1/integrations' })).json<{ name: string }[]>();
    expect(list.map((i) => i.name)).toEqual(['Difference Works']);
    const pages = await call(t.app, acme.apiKey, { method: 'POST', url: `/public/v1/integration-trigger/${channelId}`, payload: { methodName: 'pages' } });
    expect(JSON.stringify(pages.json())).toContain('Notes Ltd');
  });

  it('switches to another administered page, keeping the grant', async () => {
    const res = await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: '3003' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: channelId, name: 'Notes Ltd', profile: 'notes-ltd', identifier: 'linkedin-page' });
    const row = await t.deps.repositories.integrations.findById(channelId);
    expect(row!.internalId).toBe('3003');
    expect(JSON.parse(t.deps.secretBox.open(row!.credentials!))).toMatchObject({ authorUrn: 'urn:li:organization:3003', organizationId: '3003' });
  });

  it('refuses a page the member does not administer, naming the field; other organisations get 404', async () => {
    const body = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: '1001' } }), 400, 'VALIDATION_FAILED');
    expect(body.fields![0]!.path).toBe('id');
    await expectIsolated(t.app, { method: 'PUT', url: `/public/v1/integrations/${channelId}/account`, payload: { id: '2002' } }, acme, beta);
  });

  it('platforms with one account per connection say so', async () => {
    const tg = await t.deps.repositories.integrations.insertIntegration({ organizationId: acme.id, identifier: 'telegram', internalId: '-1', name: 'TG', credentials: t.deps.secretBox.seal('{}') });
    const body = expectError(await call(t.app, acme.apiKey, { method: 'PUT', url: `/public/v1/integrations/${tg.id}/account`, payload: { id: 'x' } }), 400, 'VALIDATION_FAILED');
    expect(body.message).toContain('one account per channel');
  });
});
