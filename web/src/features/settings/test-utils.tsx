import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { MeProvider, type Me } from '../../api/session.js';

/**
 * Component-test helpers of the settings and media pages (not part of the app's bundle): a fake
 * API answering like the real one, and a render with the app's providers.
 */

export interface ApiCall {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}

/** Answers a Response, or a body (or a promise of either). */
export type Handler = (call: ApiCall & { params: Record<string, string> }) => unknown;

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function apiError(status: number, code: string, message: string, fields?: { path: string; message: string }[]): Response {
  return json(status, { statusCode: status, code, message, requestId: 'req-1', ...(fields ? { fields } : {}) });
}

/**
 * A fetch that answers `METHOD /path/{param}` routes (paths under /public/v1). A handler returns a
 * Response, or a body (answered 200, or 201 for POST). Unknown routes answer 404. Calls are kept.
 */
export function fakeApi(routes: Record<string, Handler>) {
  const calls: ApiCall[] = [];
  const table = Object.entries(routes).map(([key, handler]) => {
    const [method, pattern] = key.split(' ') as [string, string];
    const names: string[] = [];
    const re = new RegExp(`^/public/v1${pattern.replace(/\{(\w+)\}/g, (_m, n: string) => (names.push(n), '([^/]+)'))}$`);
    return { method, re, names, handler };
  });
  async function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(request.url, 'http://localhost');
    const text = request.method === 'GET' || request.method === 'HEAD' ? '' : await request.text();
    const call: ApiCall = { method: request.method, path: url.pathname.replace(/^\/public\/v1/, ''), query: url.searchParams, body: text ? (JSON.parse(text) as unknown) : undefined };
    calls.push(call);
    for (const r of table) {
      const m = r.re.exec(url.pathname);
      if (r.method !== request.method || !m) continue;
      const params = Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
      const out = await r.handler({ ...call, params });
      return out instanceof Response ? out : json(request.method === 'POST' ? 201 : 200, out);
    }
    return apiError(404, 'NOT_FOUND', `No route ${request.method} ${url.pathname}`);
  }
  return { fetch, calls };
}

export function makeMe(role: Me['organization']['role'] = 'owner', timezone: string | null = 'Europe/Paris'): Me {
  return {
    user: { id: 'user-olga', email: 'olga@example.test', name: 'Olga', timezone },
    organization: { id: 'org-acme', name: 'Acme', role },
    organizations: [{ id: 'org-acme', name: 'Acme', role }],
    csrfToken: 'csrf-token',
  };
}

export function renderWithApp(ui: ReactNode, { me = makeMe(), path = '/' }: { me?: Me; path?: string } = {}) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const result = render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <MeProvider me={me}>{ui}</MeProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { ...result, queryClient };
}
