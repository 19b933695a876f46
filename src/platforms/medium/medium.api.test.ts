import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../../test/helpers.js';
import { picture, platformApi, PUBLIC_URL, sha } from '../../../test/platform-api-kit.js';
import type { MediumSimulator } from './medium.simulator.js';
import { ABOUT, DEVELOPERS, MEDIUM_TOKEN, mediumSimulator, platformOriginsFor, startPullingApp, WRITER } from './medium.testkit.js';

/**
 * Medium end to end through the HTTP API of a real app with its worker: the connect form
 * (`GET /social/medium`), a wrong token refused on its field with nothing stored, the right one
 * verified and saved, the publications tool, and a story with a picture published by the worker —
 * Medium fetches the picture from the app's own `/media/…` URL (the app listens on loopback,
 * mapped from PUBLIC_URL), and the simulator's record holds the sha256 of the bytes it got.
 */

const api = platformApi('medium');
let sim: MediumSimulator;
let channelId: string;

beforeAll(async () => {
  // Medium fetches pictures from PUBLIC_URL: the app really listens, and the simulator maps PUBLIC_URL to it.
  sim = await startPullingApp(api, (mediaOrigins) => mediumSimulator({ mediaOrigins }), platformOriginsFor);
});

afterAll(async () => {
  await api.close();
  await sim?.close();
});

describe('medium through the API', () => {
  it('GET /social/medium shows the connect form, which says Medium issues no new tokens', async () => {
    const res = await api.call({ method: 'GET', url: '/public/v1/social/medium' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ url: null; credentials: { required: string[]; properties: { token: { description: string } } } }>();
    expect(body.url).toBeNull();
    expect(body.credentials.required).toEqual(['token']);
    expect(body.credentials.properties.token.description).toMatch(/stopped issuing new integration tokens on 1 January 2025/);
  });

  it('a wrong token answers 400 naming the token, and stores no channel', async () => {
    expect(await api.expectConnectRefused({ token: '0123456789abcdef' })).toEqual([{ path: 'token', message: 'Medium refused the integration token: Token was invalid.' }]);
  });

  it('the integration token is verified with Medium and the channel saved', async () => {
    const res = await api.connectForm({ token: MEDIUM_TOKEN });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ identifier: 'medium', name: 'Acme Writes', profile: 'acmewrites', picture: WRITER.imageUrl });
    expect(res.body).not.toContain(MEDIUM_TOKEN);
    channelId = res.json<{ id: string }>().id;
    expect((await api.channelRow(channelId)).internalId).toBe(WRITER.id);
  });

  it('the publications tool lists the account’s publications', async () => {
    expect((await api.toolOutput<{ id: string; name: string }[]>(channelId, 'publications')).map((p) => [p.id, p.name])).toEqual([
      [DEVELOPERS, 'Developers'],
      [ABOUT, 'About Medium'],
    ]);
  });

  it('refuses a story without a title and one with four tags, naming the fields', async () => {
    const res = await api.createPost(channelId, { subtitle: 'Sub', tags: ['a', 'b', 'c', 'd'].map((v) => ({ value: v, label: v })) }, [{ content: '<p>x</p>' }]);
    const paths = expectError(res, 400, 'VALIDATION_FAILED').fields!.map((f) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['posts.0.settings.title', 'posts.0.settings.tags']));
    expect(sim.posts).toHaveLength(0);
  });

  it('publishes a story with a picture: Medium pulls the bytes from the public media URL', async () => {
    const png = await picture(1, { width: 32, height: 24 });
    const media = await api.upload(png, 'rack.png');
    expect(media.path.startsWith(`${PUBLIC_URL}/media/`)).toBe(true);
    const post = await api.publish(
      channelId,
      { title: 'Why we self-host', subtitle: 'Owning the scheduler', canonical: 'https://blog.example.com/self-host', tags: [{ value: 'self-hosting', label: 'Self Hosting' }] },
      [{ content: '<p>Our <strong>own</strong> servers.</p>', image: [{ id: media.id, path: media.path, alt: 'A rack' }] }],
    );
    const story = sim.posts.find((p) => p.id === post.releaseId)!;
    expect(post.releaseURL).toBe(`https://medium.com/@acmewrites/why-we-self-host-${story.id}`);
    expect(story).toMatchObject({ authorId: WRITER.id, title: 'Why we self-host', contentFormat: 'markdown', tags: ['self-hosting'], canonicalUrl: 'https://blog.example.com/self-host', publishStatus: 'public' });
    expect(story.content).toBe(`# Why we self-host\n\n## Owning the scheduler\n\nOur **own** servers.\n\n![A rack](${media.path})`);
    expect(story.images.map((i) => i.sha256)).toEqual([sha(png)]);
    expect(sim.posts).toHaveLength(1);
  });
});
