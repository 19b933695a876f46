import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { shownSecret, type Browser } from './browser.js';

/** A PKCE pair (RFC 7636, S256). */
export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers an app of the signed-in person's organisation on the developer pages. */
export async function registerApp(b: Browser, input: { name?: string; redirectUris?: string[]; kind?: 'confidential' | 'public'; logoUrl?: string } = {}) {
  await b.get('/account/apps');
  const res = await b.post('/account/apps', {
    name: input.name ?? 'Scheduler Pro',
    logoUrl: input.logoUrl ?? '',
    redirectUris: (input.redirectUris ?? ['https://app.example/callback']).join('\n'),
    kind: input.kind ?? 'confidential',
  });
  expect(res.statusCode, res.body.slice(0, 400)).toBe(201);
  const clientId = /client id <code>([^<]+)<\/code>/.exec(res.body)![1]!;
  return { clientId, clientSecret: input.kind === 'public' ? undefined : shownSecret(res.body) };
}

export function authorizeUrl(q: Record<string, string | undefined>) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.set(k, v);
  return `/oauth/authorize?${params.toString()}`;
}

/**
 * The browser side of an authorisation: opens the consent page for the request and answers it
 * (approve for the organisation given, or the first offered). Answers the redirect's URL.
 */
export async function consent(b: Browser, q: Record<string, string | undefined>, opts: { approve?: boolean; organizationId?: string; access?: 'read' | 'write' } = {}) {
  const page = await b.get(authorizeUrl(q));
  expect(page.statusCode, page.body.slice(0, 600)).toBe(200);
  const hidden = b.hiddenFields('/oauth/authorize');
  const form: Record<string, string> = { ...hidden, decision: opts.approve === false ? 'deny' : 'approve' };
  // read only or read and write (offered when the app asks for mcp:write): the choice given, or the one checked
  const checked = /<input type="radio" name="access" value="([^"]+)" checked>/.exec(page.body);
  if (opts.access) form.access = opts.access;
  else if (checked) form.access = checked[1]!;
  if (opts.organizationId) form.organizationId = opts.organizationId;
  else {
    const m = /<select id="organizationId" name="organizationId"><option value="([^"]+)"/.exec(page.body);
    if (m) form.organizationId = m[1]!;
  }
  const res = await b.post('/oauth/authorize', form);
  expect(res.statusCode, res.body.slice(0, 600)).toBe(303);
  return new URL(String(res.headers.location));
}

/** POST to the token (or another OAuth) endpoint as a form, optionally with Basic client auth. */
export function oauthPost(app: FastifyInstance, url: string, body: Record<string, string | undefined>, basic?: { id: string; secret: string }) {
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) if (v !== undefined) form.set(k, v);
  return app.inject({
    method: 'POST',
    url,
    payload: form.toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(basic ? { authorization: `Basic ${Buffer.from(`${encodeURIComponent(basic.id)}:${encodeURIComponent(basic.secret)}`).toString('base64')}` } : {}),
    },
  });
}
