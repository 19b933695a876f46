import { z } from 'zod';
import { AppError, notFound, validationError, type FieldError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { hashCredential, newClientId, newClientSecret, visiblePrefix } from '../../lib/tokens.js';
import type { AccountsService } from '../accounts/accounts.service.js';
import type { SessionContext } from '../sessions/sessions.service.js';
import { OAuthError } from './oauth-core.js';
import type { ClientRow, OauthRepository } from './oauth.repository.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why a redirect URI cannot be registered, or undefined when it can: an absolute http(s) URL
 * without a fragment; plain http only for loopback (native apps, RFC 8252 §7.3). Custom schemes
 * are not offered: every client here is a web app or a loopback listener.
 */
export function redirectUriProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) return 'must use https (http only for localhost, 127.0.0.1 or [::1])';
  if (url.hash || value.includes('#')) return 'must not have a fragment (#…)';
  if (url.username || url.password) return 'must not carry a user name or password';
  return undefined;
}

const HttpsUrl = z
  .string()
  .trim()
  .max(2000)
  .refine((v) => {
    try {
      return new URL(v).protocol === 'https:';
    } catch {
      return false;
    }
  }, 'Give an https:// URL');

/** The developer-settings form for an app of the organisation. */
export const AppInputSchema = z.object({
  name: z.string().trim().min(1, 'Give the app a name').max(100, 'At most 100 characters'),
  logoUrl: z.union([z.literal(''), HttpsUrl]).default(''),
  redirectUris: z
    .string()
    .max(20_000)
    .transform((v) =>
      v
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string()).min(1, 'Give at least one redirect URI').max(20, 'At most 20 redirect URIs')),
  kind: z.enum(['confidential', 'public'], 'Choose confidential or public').default('confidential'),
});
export type AppInput = z.input<typeof AppInputSchema>;

/** RFC 7591 §2 client metadata, as far as this server uses it. */
const RegistrationSchema = z.object({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(20),
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: HttpsUrl.optional(),
  logo_uri: HttpsUrl.optional(),
  token_endpoint_auth_method: z.enum(['none', 'client_secret_basic', 'client_secret_post']).optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: z.string().max(1000).optional(),
});

export interface ClientView {
  id: string;
  clientId: string;
  name: string;
  logoUrl: string | null;
  redirectUris: string[];
  kind: 'confidential' | 'public';
  secretPrefix: string | null;
  createdAt: string;
}

const view = (c: ClientRow): ClientView => ({
  id: c.id,
  clientId: c.clientId,
  name: c.name,
  logoUrl: c.logoUrl,
  redirectUris: c.redirectUris,
  kind: c.kind,
  secretPrefix: c.secretPrefix,
  createdAt: c.createdAt.toISOString(),
});

/**
 * The apps that may ask for access: those an organisation registers in its developer settings
 * (owners and admins), and those that register themselves (RFC 7591, unless switched off).
 * Secrets are shown once and kept as SHA-256.
 */
export function createClientsService(deps: {
  oauth: OauthRepository;
  accounts: Pick<AccountsService, 'requireRole'>;
  clock: Clock;
  dynamicRegistration: boolean;
  onTokensRevoked(tokenIds: string[]): void;
}) {
  const { oauth } = deps;

  function checkRedirects(uris: string[], path: (i: number) => string): void {
    const fields: FieldError[] = [];
    uris.forEach((u, i) => {
      const problem = redirectUriProblem(u);
      if (problem) fields.push({ path: path(i), message: `${u}: ${problem}` });
    });
    if (fields.length > 0) throw validationError(fields);
  }

  return {
    async listApps(session: SessionContext) {
      const me = await deps.accounts.requireRole(session, 'admin');
      return { organization: me, apps: (await oauth.listOrganizationClients(me.organizationId)).map(view) };
    },

    /** Registers an app of the organisation; a confidential one gets its secret, answered once. */
    async createApp(session: SessionContext, input: AppInput) {
      const me = await deps.accounts.requireRole(session, 'admin');
      const parsed = AppInputSchema.safeParse(input);
      if (!parsed.success) throw validationError(parsed.error.issues.map((i) => ({ path: i.path.join('.') || 'body', message: i.message })));
      const app = parsed.data;
      checkRedirects(app.redirectUris, () => 'redirectUris');
      const secret = app.kind === 'confidential' ? newClientSecret() : undefined;
      const row = await oauth.insertClient({
        clientId: newClientId(),
        organizationId: me.organizationId,
        origin: 'organization',
        kind: app.kind,
        name: app.name,
        logoUrl: app.logoUrl || null,
        redirectUris: app.redirectUris,
        secretHash: secret ? hashCredential(secret) : null,
        secretPrefix: secret ? visiblePrefix(secret) : null,
        createdBy: session.userId,
      });
      return { app: view(row), clientSecret: secret };
    },

    /** A new secret for a confidential app (the old one stops working at once); answered once. */
    async rotateSecret(session: SessionContext, id: string) {
      const me = await deps.accounts.requireRole(session, 'admin');
      const secret = newClientSecret();
      const row = isUuid(id) ? await oauth.setClientSecret(me.organizationId, id, hashCredential(secret), visiblePrefix(secret)) : undefined;
      if (!row) throw notFound('Confidential app');
      return { app: view(row), clientSecret: secret };
    },

    /** Deletes the app; every grant and token issued to it is revoked with it. */
    async deleteApp(session: SessionContext, id: string) {
      const me = await deps.accounts.requireRole(session, 'admin');
      const done = isUuid(id) ? await oauth.deleteClient(me.organizationId, id, new Date(deps.clock.now())) : undefined;
      if (!done) throw notFound('App');
      deps.onTokensRevoked(done.tokenIds);
    },

    /**
     * Dynamic client registration (RFC 7591). The client belongs to no organisation; a person
     * still has to approve it on the consent page, which says that it registered itself.
     */
    async register(body: unknown) {
      if (!deps.dynamicRegistration) throw new AppError('NOT_FOUND', 'Dynamic client registration is switched off on this deployment');
      const parsed = RegistrationSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.') || 'body';
        throw new OAuthError(field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata', `${field}: ${issue.message}`);
      }
      const m = parsed.data;
      for (const uri of m.redirect_uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError('invalid_redirect_uri', `redirect_uris: ${uri} ${problem}`);
      }
      if (m.grant_types && m.grant_types.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
        throw new OAuthError('invalid_client_metadata', 'grant_types: only authorization_code and refresh_token are offered');
      }
      if (m.response_types && m.response_types.some((r) => r !== 'code')) throw new OAuthError('invalid_client_metadata', 'response_types: only "code" is offered');
      const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
      const secret = method === 'none' ? undefined : newClientSecret();
      const row = await oauth.insertClient({
        clientId: newClientId(),
        organizationId: null,
        origin: 'dynamic',
        kind: secret ? 'confidential' : 'public',
        name: m.client_name ?? 'Unnamed app',
        logoUrl: m.logo_uri ?? null,
        clientUri: m.client_uri ?? null,
        redirectUris: m.redirect_uris,
        secretHash: secret ? hashCredential(secret) : null,
        secretPrefix: secret ? visiblePrefix(secret) : null,
      });
      return {
        client_id: row.clientId,
        ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
        client_id_issued_at: Math.floor(row.createdAt.getTime() / 1000),
        client_name: row.name,
        redirect_uris: row.redirectUris,
        ...(row.clientUri ? { client_uri: row.clientUri } : {}),
        ...(row.logoUrl ? { logo_uri: row.logoUrl } : {}),
        token_endpoint_auth_method: method,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      };
    },
  };
}

export type ClientsService = ReturnType<typeof createClientsService>;
