import { failureOf } from '../../api/client.js';
import type { PreviewStatus, PreviewView } from './types.js';

/**
 * The holder's side of a preview link: plain `fetch`, no session, no CSRF token, and never the app
 * client's "401 → sign in" (here a 401 asks for the link's password). Refusals are `ApiFailure`s.
 */
const BASE = '/preview-api';

/**
 * A header carries Latin-1 only: a password of printable ASCII without `%` goes as typed, any
 * other percent-encoded (UTF-8), which the server reads too.
 */
export function passwordHeader(password: string | undefined): Record<string, string> {
  if (!password) return {};
  return { 'x-preview-password': /^[\x20-\x7e]*$/.test(password) && !password.includes('%') ? password : encodeURIComponent(password) };
}

async function send<T>(path: string, init: RequestInit & { password?: string }): Promise<T> {
  const { password, headers, ...rest } = init;
  const response = await fetch(`${BASE}${path}`, { ...rest, credentials: 'omit', cache: 'no-store', headers: { ...(headers as Record<string, string> | undefined), ...passwordHeader(password) } });
  const text = await response.text();
  let data: unknown;
  try {
    data = text ? JSON.parse(text) : undefined;
  } catch {
    data = undefined;
  }
  if (!response.ok) throw failureOf(response.status, data);
  return data as T;
}

const tokenPath = (token: string) => `/${encodeURIComponent(token)}`;

export function fetchPreview(token: string, password?: string) {
  return send<PreviewView>(tokenPath(token), { method: 'GET', password });
}

export function decidePreview(token: string, group: string, decision: 'approve' | 'request-changes', body: { name: string; comment?: string }, password?: string) {
  return send<{ group: string; status: PreviewStatus }>(`${tokenPath(token)}/groups/${encodeURIComponent(group)}/${decision}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    password,
  });
}
