import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter } from 'react-router';
import { MeProvider, type Me } from '../../api/session.js';
import type { Integration } from '../../api/queries.js';

/**
 * The channels page's component-test kit (happy-dom): the API answered by a table of routes
 * through a stubbed `fetch` (stub it in `vi.hoisted`: the typed client keeps the `fetch` it found
 * when it was created), the signed-in person and a fresh query client per render.
 */
export type Routes = Record<string, (req: Request, url: URL, body: unknown) => unknown>;

export interface Call {
  method: string;
  path: string;
  search: URLSearchParams;
  body: unknown;
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export function apiError(status: number, code: string, message: string, fields?: { path: string; message: string }[]): Response {
  return json({ statusCode: status, error: 'Error', code, message, ...(fields ? { fields } : {}), requestId: 'req-1' }, status);
}

/** A fetch answering `"METHOD /path"` (after /public/v1; `:x` is one segment), recording calls; 404 otherwise. */
export function apiFetch(routes: Routes, calls: Call[]) {
  const table = Object.entries(routes).map(([key, handler]) => {
    const [method, pattern] = key.split(' ') as [string, string];
    return { method, re: new RegExp(`^${pattern.replace(/:[a-zA-Z]+/g, '[^/]+')}$`), handler };
  });
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = input instanceof Request ? input : new Request(input, init);
    const url = new URL(req.url);
    const path = url.pathname.replace(/^\/public\/v1/, '');
    const text = req.method === 'GET' ? '' : await req.clone().text();
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    calls.push({ method: req.method, path, search: url.searchParams, body });
    const hit = table.find((r) => r.method === req.method && r.re.test(path));
    if (!hit) return apiError(404, 'ROUTE_NOT_FOUND', `No route ${req.method} ${path}`);
    const out = await hit.handler(req, url, body);
    return out instanceof Response ? out : json(out);
  };
}

export function meFixture(timezone: string | null = 'Europe/Berlin'): Me {
  const organization = { id: 'org-1', name: 'Acme', role: 'member' as const };
  return { user: { id: 'user-1', email: 'olga@example.test', name: 'Olga', timezone }, organization, organizations: [organization], csrfToken: 'csrf-1' };
}

export function channel(over: Partial<Integration> & Pick<Integration, 'id' | 'name' | 'identifier'>): Integration {
  return {
    picture: null,
    disabled: false,
    profile: null,
    refreshNeeded: false,
    postingTimes: [],
    settings: {},
    createdAt: '2026-01-15T10:00:00.000Z',
    updatedAt: '2026-01-15T10:00:00.000Z',
    ...over,
  };
}

export function renderWithApp(ui: ReactNode, me: Me = meFixture()) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false }, mutations: { retry: false } } });
  return {
    queryClient,
    ...render(
      <QueryClientProvider client={queryClient}>
        <MeProvider me={me}>
          <MemoryRouter initialEntries={['/channels']}>{ui}</MemoryRouter>
        </MeProvider>
      </QueryClientProvider>,
    ),
  };
}
