import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, sha } from '../../../test/platform-api-kit.js';
import type { ListmonkSimulator } from './listmonk.simulator.js';
import { API_USER, DOWN_INSTANCE, INSTANCE, listmonkSimulator, NEWSLETTER, platformOriginsFor } from './listmonk.testkit.js';

/**
 * listmonk end to end through the HTTP API of a real app with its worker: the credentials form
 * verified against the instance (a wrong token and an unreachable address each refused on their
 * field with nothing stored), the list and templates tools, a campaign with a picture published by
 * the worker (the picture uploaded to listmonk's media, the bytes compared by sha256, the campaign
 * started), and the campaign's views and clicks as post analytics.
 */

const api = platformApi('listmonk');
let sim: ListmonkSimulator;
let channelId: string;
let postId: string;
let campaignId: string;

beforeAll(async () => {
  sim = await listmonkSimulator();
  await api.start({ env: { PLATFORM_ORIGINS: platformOriginsFor(sim) } });
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('listmonk through the API', () => {
  it('a wrong token and an address that answers nothing are refused on their fields, and nothing is stored', async () => {
    const wrong = await api.expectConnectRefused({ instanceUrl: INSTANCE, username: API_USER.username, token: 'not-the-token' });
    expect(wrong).toEqual([{ path: 'token', message: 'listmonk refused the API user and token: invalid API credentials' }]);
    const down = await api.expectConnectRefused({ instanceUrl: DOWN_INSTANCE, username: API_USER.username, token: API_USER.token });
    expect(down.map((f) => f.path)).toEqual(['instanceUrl']);
    expect(down[0]!.message).toMatch(/^listmonk could not be reached at https:\/\/down\.example\.com/);
  });

  it('the API user and token are verified on the instance and the channel saved', async () => {
    const res = await api.connectForm({ instanceUrl: `${INSTANCE}/`, username: API_USER.username, token: API_USER.token });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'listmonk', name: 'Acme Newsletter', profile: 'tidings@lists.example.com' });
    expect(res.body).not.toContain(API_USER.token);
    channelId = res.json<{ id: string }>().id;
    expect((await api.channelRow(channelId)).internalId).toBe(`${INSTANCE}#tidings`);
    expect(await api.openCredentials(channelId)).toEqual({ instanceUrl: INSTANCE, username: API_USER.username, token: API_USER.token });
  });

  it('the list and templates tools', async () => {
    expect((await api.toolOutput<{ id: string; name: string }[]>(channelId, 'list')).map((l) => [l.id, l.name])).toEqual([
      ['3', 'Newsletter'],
      ['5', 'Beta testers'],
    ]);
    expect((await api.toolOutput<{ id: string }[]>(channelId, 'templates')).map((x) => x.id)).toEqual(['1', '2']);
  });

  it('refuses a campaign without a subject or list, naming the fields', async () => {
    const res = await api.createPost(channelId, { preview: '' }, [{ content: '<p>x</p>' }]);
    const paths = expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['posts.0.settings.subject', 'posts.0.settings.list']));
    expect(sim.campaigns).toHaveLength(0);
  });

  it('publishes a campaign with a picture uploaded to listmonk, and starts it', async () => {
    const png = await picture(1);
    const media = await api.upload(png, 'team.png');
    const post = await api.publish(channelId, { subject: 'June news', preview: 'What we shipped', list: String(NEWSLETTER), template: '1' }, [
      { content: '<p>Hello <strong>readers</strong></p>', image: [{ id: media.id, path: media.path, alt: 'The team' }] },
    ]);
    postId = post.id;
    expect(sim.campaigns).toHaveLength(1);
    const c = sim.campaigns[0]!;
    campaignId = String(c.id);
    expect(post.releaseId).toBe(campaignId);
    expect(post.releaseURL).toBe(`${INSTANCE}/admin/campaigns/${c.id}`);
    expect(c).toMatchObject({ subject: 'June news', lists: [NEWSLETTER], contentType: 'html', templateId: 1, status: 'running', createdBy: 'tidings' });
    expect(c.body).toContain('What we shipped</div><p>Hello <strong>readers</strong></p>');
    expect(sim.media.map((m) => m.sha256)).toEqual([sha(png)]);
    expect(c.images.map((i) => i.sha256)).toEqual([sha(png)]);
  });

  it('the campaign’s views and clicks as post analytics', async () => {
    const today = new Date(api.clock.now()).toISOString().slice(0, 10);
    sim.setAnalytics(Number(campaignId), 'views', [{ date: today, count: 64 }]);
    sim.setAnalytics(Number(campaignId), 'clicks', [{ date: today, count: 9 }]);
    const series = await api.figures(`post/${postId}`);
    expect(series.map((s) => s.label)).toEqual(['Views', 'Clicks']);
    expect(series[0]!.data).toHaveLength(7);
    expect(series[0]!.data.at(-1)).toEqual({ date: today, total: 64 });
    expect(series[1]!.data.at(-1)).toEqual({ date: today, total: 9 });
  });
});
