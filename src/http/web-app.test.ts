import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, expectError, type TestApp } from '../../test/helpers.js';

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('the calendar app served at /', () => {
  let t: TestApp;
  let bare: TestApp;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tidings-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tidings</title><div id="root"></div>');
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("app")');
    writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    t = await buildTestApp({ webApp: { dir } });
    bare = await buildTestApp();
  });
  afterAll(async () => {
    await t.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  });

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

  it('never answers the service’s own paths, or non-browser clients, with the app', async () => {
    expectError(await t.app.inject({ method: 'GET', url: '/public/v1/nothing-here', headers: HTML }), 404, 'ROUTE_NOT_FOUND');
    expectError(await t.app.inject({ method: 'GET', url: '/calendar', headers: { accept: 'application/json' } }), 404, 'ROUTE_NOT_FOUND');
    expectError(await t.app.inject({ method: 'POST', url: '/calendar', headers: HTML }), 404, 'ROUTE_NOT_FOUND');
    expect((await t.app.inject({ method: 'GET', url: '/account/signup', headers: HTML })).body).toContain('Sign in');
    expect((await t.app.inject({ method: 'GET', url: '/media/unknown.png', headers: HTML })).headers['content-type']).not.toContain('text/html; charset=utf-8');
  });

  it('without a built app, / leads to the account pages', async () => {
    const res = await bare.app.inject({ method: 'GET', url: '/', headers: HTML });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/account/login');
    expectError(await bare.app.inject({ method: 'GET', url: '/calendar', headers: HTML }), 404, 'ROUTE_NOT_FOUND');
  });
});
