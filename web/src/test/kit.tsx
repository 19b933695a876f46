import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, render } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router';
import type { Integration } from '../api/queries.js';
import { MeProvider, type Me } from '../api/session.js';

/**
 * The app's component-test kit (happy-dom; not part of the bundle): the API answered by a table of
 * routes through a stubbed `fetch`, the signed-in person, a router and a fresh query client per render.
 *
 * The typed client keeps the `fetch` it found when it was created, so a test file stubs `fetch`
 * in `vi.hoisted` (before any import) and gives each test its routes with `answer(routes)`.
 */
/** Answers a Response, or a body answered 200. */
export type Handler = (req: Request, url: URL, body: unknown) => unknown;
export type Routes = Record<string, Handler>;

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

/**
 * A fetch that answers `"METHOD /path"` (the path after /public/v1; `:id` matches one segment),
 * records every call in `calls`, and answers 404 to anything else.
 */
export function apiFetch(routes: Routes, calls: Call[] = []) {
  const table = Object.entries(routes).map(([key, handler]) => {
    const [method, pattern] = key.split(' ') as [string, string];
    const re = new RegExp(`^${pattern.replace(/:[a-zA-Z]+/g, '[^/]+')}$`);
    return { method, re, handler };
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

/** A route handler that reads only the request's JSON body. */
export type BodyHandler = (body: unknown) => unknown;

/**
 * Makes the file's stubbed `fetch` (a `vi.fn`) answer `routes` through `apiFetch`, with handlers
 * that read only the request's body; every call is recorded in `calls`.
 */
export function serve(fetchMock: { mockImplementation: (fn: ReturnType<typeof apiFetch>) => unknown }, routes: Record<string, BodyHandler>, calls: Call[] = []) {
  const table: Routes = Object.fromEntries(Object.entries(routes).map(([key, handler]) => [key, (_req: Request, _url: URL, body: unknown) => handler(body)]));
  fetchMock.mockImplementation(apiFetch(table, calls));
}

export function meFixture(over: { timezone?: string | null; organizationId?: string; role?: Me['organization']['role'] } = {}): Me {
  const organization = { id: over.organizationId ?? 'org-1', name: 'Acme', role: over.role ?? 'owner' };
  return {
    user: { id: 'user-1', email: 'olga@example.test', name: 'Olga', timezone: over.timezone === undefined ? 'Europe/Berlin' : over.timezone },
    organization,
    organizations: [organization],
    csrfToken: 'csrf-1',
  };
}

/** A channel as GET /integrations answers it. */
export function channel(over: Partial<Integration> & Pick<Integration, 'id' | 'name' | 'identifier'>): Integration {
  return {
    picture: null,
    disabled: false,
    profile: null,
    refreshNeeded: false,
    sandbox: false,
    postingTimes: [],
    settings: {},
    createdAt: '2026-01-15T10:00:00.000Z',
    updatedAt: '2026-01-15T10:00:00.000Z',
    ...over,
  };
}

/** Shows where the router is (tests read it to check navigation). */
function WhereAmI() {
  const location = useLocation();
  return (
    <output data-testid="location">
      {location.pathname}
      {location.search}
    </output>
  );
}

export function renderPage(ui: ReactNode, opts: { path?: string; route?: string; me?: Me; extraRoutes?: { path: string; element: ReactNode }[] } = {}) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false }, mutations: { retry: false } } });
  const me = opts.me ?? meFixture();
  const result = render(
    <QueryClientProvider client={queryClient}>
      <MeProvider me={me}>
        <MemoryRouter initialEntries={[opts.route ?? '/']}>
          <Routes>
            <Route path={opts.path ?? '/'} element={ui} />
            {(opts.extraRoutes ?? []).map((r) => (
              <Route key={r.path} path={r.path} element={r.element} />
            ))}
            <Route path="*" element={null} />
          </Routes>
          <WhereAmI />
        </MemoryRouter>
      </MeProvider>
    </QueryClientProvider>,
  );
  return { ...result, queryClient };
}

/**
 * After each composer test: unmounted first (a composer going away writes its draft, which must
 * not reach the next test), then the fetch stub reset, the toast host removed and drafts cleared.
 */
export function resetComposer(fetchMock: { mockReset: () => unknown }) {
  cleanup();
  fetchMock.mockReset();
  document.querySelector('.compose-toast-host')?.remove();
  localStorage.clear();
}
