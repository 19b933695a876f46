import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
export { freePort } from '../wire.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';


/**
 * An assistant's side of "sign in instead of pasting a key": the SDK's OAuthClientProvider with
 * everything (client registration, tokens, PKCE verifier, state) in memory. The SDK calls
 * `redirectToAuthorization` with the consent URL; `open` decides what happens with it (a
 * browser opens it, or a test follows it).
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  stored: OAuthTokens | undefined;
  verifier: string | undefined;
  /** the state of the last authorisation request, to compare with the callback's */
  lastState: string | undefined;
  /** every URL the SDK sent the person to */
  readonly authorizationUrls: URL[] = [];

  constructor(
    readonly redirectUrl: string,
    readonly clientName: string,
    private readonly open: (url: URL) => void | Promise<void> = () => undefined,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state() {
    this.lastState = randomBytes(16).toString('base64url');
    return this.lastState;
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }

  tokens() {
    return this.stored;
  }

  saveTokens(tokens: OAuthTokens) {
    this.stored = tokens;
  }

  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    await this.open(url);
  }

  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }

  codeVerifier() {
    if (!this.verifier) throw new Error('no PKCE verifier saved');
    return this.verifier;
  }
}

export interface CallbackServer {
  /** the redirect URI to register (`http://127.0.0.1:<port>/callback`) */
  url: string;
  /** the next request to /callback: its query (code, state, iss, or error) */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

/** The assistant's loopback listener (RFC 8252 §7.3): answers the browser and hands over the callback's query. */
export async function startCallbackServer(): Promise<CallbackServer> {
  const waiting: ((q: URLSearchParams) => void)[] = [];
  const arrived: URLSearchParams[] = [];
  const server = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Signed in</title><p>You can close this window.</p>');
    const waiter = waiting.shift();
    if (waiter) waiter(url.searchParams);
    else arrived.push(url.searchParams);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
