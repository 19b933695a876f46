import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expectError, useTestApp } from '../../test/helpers.js';

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('the calendar app served at /', () => {
  let dir: string;
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const { t } = useTestApp(() => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tidings</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    return { webApp: { dir }, env: { PUBLIC_URL: 'http://localhost:4123/' } };
  });
  const { t: bare } = useTestApp();

  it('answers a browser on any of the app’s own paths with index.html, under a strict CSP', async () => {
    for (const url of ['/', '/calendar', '/posts/6d1f0c5e-1111-4222-8333-444455556666', '/settings/webhooks?tab=log']) {
      const res = await t.app.inject({ method: 'GET', url, headers: HTML });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<div id="root">');
      expect(res.headers['content-security-policy']).toContain("default-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('serves hashed assets for good, and 404s the ones that are not there', async () => {
    const js = await t.app.inject({ method: 'GET', url: '/assets/index-abc123.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['cache-control']).toContain('immutable');
    expect((await t.app.inject({ method: 'GET', url: '/assets/gone-000.js', headers: HTML })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/favicon.svg' })).headers['content-type']).toContain('image/svg+xml');
  });

  it('answers the app’s paths with the app whatever the Accept header (curl, */*, none)', async () => {
    for (const url of ['/', '/calendar', '/channels', '/posts/6d1f0c5e-1111-4222-8333-444455556666?x=1']) {
      for (const headers of [{}, { accept: '*/*' }, { accept: 'application/json' }]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.body).toContain('<div id="root">');
      }
    }
    expect((await t.app.inject({ method: 'HEAD', url: '/calendar' })).statusCode).toBe(200);
  });

  it('keeps a JSON 404 for unknown paths under the service’s prefixes and for file names that are not there', async () => {
    for (const url of ['/public/v1/nope', '/api/public/v1/nope', '/integrations/nope', '/media/2020/01/nope.png', '/oauth/nope', '/account/nope', '/robots.txt', '/wp-login.php']) {
      for (const headers of [{}, { accept: '*/*' }]) {
        const res = await t.app.inject({ method: 'GET', url, headers });
        expect(res.statusCode, url).toBe(404);
        expect(res.headers['content-type'], url).toContain('application/json');
        expect(res.json<{ statusCode: number }>().statusCode).toBe(404);
      }
    }
  });

  it('lets the app show media from PUBLIC_URL’s origin, whichever address of the server the page was opened at', async () => {
    const csp = (await t.app.inject({ method: 'GET', url: '/library' })).headers['content-security-policy'] as string;
    const directive = (name: string) => csp.split(';').map((d) => d.trim()).find((d) => d.startsWith(`${name} `))!.split(' ');
    expect(directive('img-src')).toContain('http://localhost:4123');
    expect(directive('media-src')).toContain('http://localhost:4123');
    // nothing else is widened
    expect(directive('connect-src')).toEqual(['connect-src', "'self'"]);
    expect(directive('default-src')).toEqual(['default-src', "'self'"]);
  });

  it('never answers the service’s own paths, or other methods, with the app', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/public/v1/nothing-here', headers: HTML }), 404, 'ROUTE_NOT_FOUND');
    expectError(await t.app.inject({ method: 'POST', url: '/calendar', headers: HTML }), 404, 'ROUTE_NOT_FOUND');
    expect((await t.app.inject({ method: 'GET', url: '/account/signup', headers: HTML })).body).toContain('Sign in');
    expect((await t.app.inject({ method: 'GET', url: '/media/unknown.png', headers: HTML })).headers['content-type']).not.toContain('text/html; charset=utf-8');
  });

  it('serves the icon as /favicon.svg and /favicon.ico, with or without a built app, and the account pages link it', async () => {
    for (const app of [t.app, bare.app]) {
      for (const url of ['/favicon.svg', '/favicon.ico']) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode, url).toBe(200);
        expect(res.headers['content-type']).toContain('image/svg+xml');
        expect(res.body).toContain('<svg');
      }
    }
    const login = await bare.app.inject({ method: 'GET', url: '/account/signup', headers: HTML });
    expect(login.body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  });

  it('without a built app, / leads to the account pages', async () => {
    const res = await bare.app.inject({ method: 'GET', url: '/', headers: HTML });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/account/login');
    expectError(await bare.app.inject({ method: 'GET', url: '/calendar', headers: HTML }), 404, 'ROUTE_NOT_FOUND');
  });
});
