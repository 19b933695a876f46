import type { Readable, Writable } from 'node:stream';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type InitializeRequest,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * `tidings mcp`: MCP on standard input/output for desktop assistants that start a local command,
 * relayed unchanged to a running service's Streamable HTTP endpoint. The tools, resources and
 * prompts exist once, on the service; this process only carries JSON-RPC messages both ways (the
 * SDK's client transport keeps the session id and the protocol version header). It imports nothing
 * from modules/ or the database: it runs on the assistant's machine, often far from the service.
 *
 * Failures of the service (unreachable, a refused credential, any other HTTP refusal) answer the
 * request that met them with a JSON-RPC error saying so, and the bridge keeps running: assistants
 * show that message, and the next request tries again (the service may have been started since).
 */
export interface StdioBridgeOptions {
  /** the service's MCP endpoint (`<url>/mcp`) */
  endpoint: URL;
  /** an API key or a `pos_` OAuth token, sent as `Authorization: Bearer …` */
  key: string;
  /** the bridge's own version, in its User-Agent */
  version: string;
  /** one line for a person: stderr (stdout carries JSON-RPC only) */
  log: (line: string) => void;
  stdin?: Readable;
  stdout?: Writable;
  /** how long a transparent re-initialisation (after the service forgot the session) may take */
  reinitializeTimeoutMs?: number;
}

/** JSON-RPC error codes the bridge answers with (the service's own code when it gave one). */
const UNREACHABLE = -32000;
const REFUSED = -32001;

/** A non-2xx answer to a POST, with the service's body, raised by our fetch so its details survive. */
class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`HTTP ${status}`);
  }

  /** the JSON-RPC error the service put in its body, if it did */
  get rpcError(): { code: number; message: string; data?: unknown } | undefined {
    try {
      const parsed = JSON.parse(this.body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
      const e = parsed.error;
      if (e && typeof e.code === 'number' && typeof e.message === 'string') return { code: e.code, message: e.message, data: e.data };
    } catch {
      // not JSON: the body is reported as text
    }
    return undefined;
  }
}

/** Reads the response of a refused POST into an HttpRefusal; everything else passes through. */
const refusalAwareFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  if (response.status >= 400 && (init?.method ?? 'GET').toUpperCase() === 'POST') {
    const body = await response.text().catch(() => '');
    throw new HttpRefusal(response.status, body);
  }
  return response;
};

function causeOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof Error) return `${err.message}: ${(cause as { code?: string }).code ?? cause.message}`;
  return err.message;
}

/** The JSON-RPC error a request gets when the service could not handle it. */
export function bridgeError(err: unknown, endpoint: URL): { code: number; message: string; data?: unknown } {
  if (err instanceof HttpRefusal) {
    const rpc = err.rpcError;
    if (err.status === 401 || err.status === 403) {
      const why = rpc?.message ?? (err.body.slice(0, 200) || `HTTP ${err.status}`);
      return {
        code: rpc?.code ?? REFUSED,
        message: `Tidings at ${endpoint.origin} refused the credential given with --key or TIDINGS_API_KEY (HTTP ${err.status}): ${why}`,
        data: { status: err.status, ...(rpc?.data && typeof rpc.data === 'object' ? rpc.data : {}) },
      };
    }
    if (rpc) return { code: rpc.code, message: `Tidings answered HTTP ${err.status}: ${rpc.message}`, data: { status: err.status, ...(rpc.data && typeof rpc.data === 'object' ? rpc.data : {}) } };
    return { code: UNREACHABLE, message: `Tidings at ${endpoint.href} answered HTTP ${err.status}${err.body ? `: ${err.body.slice(0, 200)}` : ''}`, data: { status: err.status } };
  }
  return {
    code: UNREACHABLE,
    message: `Cannot reach Tidings at ${endpoint.href} (${causeOf(err)}); is the service running, and is --url or TIDINGS_URL its address?`,
  };
}

/** Runs the bridge until standard input closes; resolves once both sides are closed. */
export async function runStdioBridge(opts: StdioBridgeOptions): Promise<void> {
  const { endpoint, log } = opts;
  const stdio = new StdioServerTransport(opts.stdin, opts.stdout);
  const stdin = opts.stdin ?? process.stdin;
  const reinitializeTimeoutMs = opts.reinitializeTimeoutMs ?? 30_000;

  /** ids of the assistant's initialize requests in flight (their answer carries the protocol version) */
  const initializeIds = new Set<RequestId>();
  /** the assistant's last initialize, replayed when the service has forgotten the session */
  let initializeParams: InitializeRequest['params'] | undefined;
  /** answers to the bridge's own requests (re-initialisation), never forwarded */
  const internal = new Map<RequestId, (message: JSONRPCMessage) => void>();
  let internalSeq = 0;
  /** messages wait while a session is being opened, so they carry its id */
  let opening: Promise<unknown> = Promise.resolve();
  let closed = false;

  const toAssistant = (message: JSONRPCMessage) => {
    if (closed) return;
    stdio.send(message).catch((err: unknown) => log(`cannot write to the assistant: ${causeOf(err)}`));
  };

  function openHttp(): StreamableHTTPClientTransport {
    const transport = new StreamableHTTPClientTransport(endpoint, {
      requestInit: { headers: { authorization: `Bearer ${opts.key}`, 'user-agent': `tidings-mcp-bridge/${opts.version}` } },
      fetch: refusalAwareFetch,
    });
    transport.onmessage = (message) => {
      if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
        const waiter = internal.get(message.id);
        if (waiter) {
          internal.delete(message.id);
          waiter(message);
          return;
        }
        if (initializeIds.delete(message.id) && isJSONRPCResultResponse(message)) {
          const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
          if (typeof version === 'string') transport.setProtocolVersion(version);
        }
      }
      toAssistant(message);
    };
    // send() failures are answered where they happen; this sees the rest (the server's GET stream)
    transport.onerror = (err) => {
      if (!(err instanceof HttpRefusal) && !closed) log(`service stream: ${causeOf(err)}`);
    };
    return transport;
  }

  let http = openHttp();
  await http.start();

  /** Opens a new session with the assistant's own initialize, after the service forgot the old one. */
  async function reinitialize(params: InitializeRequest['params']) {
    await http.close().catch(() => undefined);
    http = openHttp();
    await http.start();
    const id = `tidings-bridge-${++internalSeq}`;
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        internal.delete(id);
        reject(new Error(`no answer to initialize in ${reinitializeTimeoutMs} ms`));
      }, reinitializeTimeoutMs);
      internal.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
    await http.send({ jsonrpc: '2.0', id, method: 'initialize', params });
    const m = await answer;
    if (!isJSONRPCResultResponse(m)) throw new Error(`initialize refused: ${JSON.stringify(m)}`);
    const version = (m.result as { protocolVersion?: unknown }).protocolVersion;
    if (typeof version === 'string') http.setProtocolVersion(version);
    await http.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    log('the service had ended the session; a new one was opened');
  }

  async function forward(message: JSONRPCMessage) {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) {
      initializeIds.add(message.id);
      initializeParams = message.params;
    }
    try {
      try {
        await http.send(message);
      } catch (err) {
        // the service ended the session (idle, restart): open another and send again, once
        const forgotten = err instanceof HttpRefusal && err.status === 404 && http.sessionId !== undefined && initializeParams && !isInitializeRequest(message);
        if (!forgotten) throw err;
        await reinitialize(initializeParams!);
        await http.send(message);
      }
    } catch (err) {
      const error = bridgeError(err, endpoint);
      log(error.message);
      if (isJSONRPCRequest(message)) {
        initializeIds.delete(message.id);
        toAssistant({ jsonrpc: '2.0', id: message.id, error });
      }
    }
  }

  stdio.onmessage = (message) => {
    const before = opening;
    const sent = before.then(() => forward(message));
    // an initialize holds the next messages until the session id is known
    if (isInitializeRequest(message)) opening = sent;
    void sent;
  };
  // a line that is not a JSON-RPC message has no id to answer: it is reported on stderr
  stdio.onerror = (err) => log(`a line from the assistant is not a JSON-RPC message: ${causeOf(err)}`);

  const ended = new Promise<void>((resolve) => {
    stdin.once('end', resolve);
    stdin.once('close', resolve);
  });
  await stdio.start();
  await ended;

  closed = true;
  await opening.catch(() => undefined);
  // end the session on the service (best effort: it ends by itself when idle)
  if (http.sessionId) {
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, 2000).unref());
    await Promise.race([http.terminateSession().catch(() => undefined), deadline]);
  }
  await http.close().catch(() => undefined);
  await stdio.close().catch(() => undefined);
}
