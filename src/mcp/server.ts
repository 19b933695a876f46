import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyBaseLogger } from 'fastify';
import { randomBytes } from 'node:crypto';
import { AppError, ERROR_CODES, type FieldError } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import type { AuthContext } from '../modules/auth/auth.service.js';
import { takeFromBudget } from '../rate-limit/budget.js';
import type { SlidingLogStore } from '../rate-limit/store.js';
import { compileTool, type CompiledTool, type ToolDefinition } from './tool.js';
import { runAsActor } from '../core/actor.js';

/** The caller of a request that does work, its request taken from the organisation's budget. */
export type ChargedCaller = (authInfo: AuthInfo | undefined) => Promise<AuthContext>;

/** What every MCP server instance shares; one instance serves one transport (a session, a request, an SSE stream). */
export interface McpDeps {
  tools: ToolDefinition[];
  /**
   * Resources and prompts, installed on each instance. Their handlers read the caller with
   * `contextOf(extra.authInfo)`, or with `charged` for a request that does work (a read, a prompt):
   * it takes one request from the organisation's budget as a tool call does.
   */
  extensions?: ((server: Server, charged: ChargedCaller) => void)[];
  rateStore: SlidingLogStore;
  /** a call refused by the rate limit (counted in `tidings_rate_limit_refusals_total{front="mcp"}`) */
  onRateLimited?: () => void;
  clock: Clock;
  logger: FastifyBaseLogger;
  version: string;
  instructions: string;
}

/** The caller of an MCP request, as the transport hands it over (`req.auth` of the HTTP request). */
export function authInfoOf(context: AuthContext, token: string): AuthInfo {
  return {
    token,
    clientId: context.credential.id,
    scopes: context.readOnly ? ['mcp:read'] : ['mcp:read', 'mcp:write'],
    extra: { context },
  };
}

/** The caller of the request being handled. */
export function contextOf(authInfo: AuthInfo | undefined): AuthContext {
  const context = authInfo?.extra?.context as AuthContext | undefined;
  // every transport authenticates before a message reaches the server
  if (!context) throw new McpError(ErrorCode.InvalidRequest, 'Not authenticated');
  return context;
}

/** Compiles the tool definitions once (their JSON Schemas), refusing a name given twice. */
export function compileTools(tools: ToolDefinition[]): CompiledTool[] {
  const seen = new Set<string>();
  return tools.map((def) => {
    if (seen.has(def.name)) throw new Error(`MCP tool ${def.name} is defined twice`);
    seen.add(def.name);
    return compileTool(def);
  });
}

/** What a failed call tells the assistant: the API's code and message, the fields, when to retry. */
function errorResult(err: AppError, requestId: string): CallToolResult {
  const fields: FieldError[] | undefined = err.extra.fields;
  const retryAfter = err.extra.headers?.['retry-after'];
  const detail = {
    code: err.code,
    status: ERROR_CODES[err.code],
    message: err.message,
    ...(fields ? { fields } : {}),
    ...(retryAfter ? { retryAfterSeconds: Number(retryAfter) } : {}),
    requestId,
  };
  const lines = [`Error ${err.code}: ${err.message}`];
  if (fields && fields.length > 1) lines.push(...fields.map((f) => `- ${f.path}: ${f.message}`));
  if (retryAfter) lines.push(`Retry after ${retryAfter} s.`);
  return { isError: true, content: [{ type: 'text', text: lines.join('\n') }, { type: 'text', text: JSON.stringify(detail) }] };
}

/**
 * Builds the tool server for one transport. Tool calls run as the request that carried them (its
 * credential, organisation and scope), count against the organisation's request budget like API
 * calls, and call the same service methods as the routes.
 */
export function createMcpServerFactory(deps: McpDeps) {
  const compiled = compileTools(deps.tools);
  const byName = new Map(compiled.map((t) => [t.def.name, t]));
  const listed: Tool[] = compiled.map((t) => ({
    name: t.def.name,
    title: t.def.title,
    description: t.def.description,
    inputSchema: t.inputSchema,
    outputSchema: t.outputSchema,
    annotations: { title: t.def.title, destructiveHint: false, idempotentHint: false, openWorldHint: false, ...t.def.annotations },
  }));

  async function call(tool: CompiledTool, args: Record<string, unknown>, context: AuthContext, signal: AbortSignal): Promise<CallToolResult> {
    const requestId = `mcp-${randomBytes(6).toString('hex')}`;
    const log = deps.logger.child({ requestId, tool: tool.def.name, organizationId: context.organizationId });
    const started = deps.clock.now();
    try {
      await takeFromBudget(deps.rateStore, context, started);
      if (context.readOnly && !tool.def.annotations.readOnlyHint) {
        throw new AppError('INSUFFICIENT_SCOPE', `${tool.def.name} changes data, and this token was granted read access only (scope mcp:read): connect again granting mcp:write`);
      }
      const parsed = tool.parse(args);
      // Recorded in the activity log as the assistant (kind mcp) under the credential's name.
      const actor = { ...context.actor, kind: 'mcp' as const };
      const result = await runAsActor(actor, () => tool.def.run({ auth: context, organizationId: context.organizationId, requestId, signal }, parsed));
      const structuredContent = tool.shape(result);
      log.info({ ms: deps.clock.now() - started }, 'tool call');
      const summary = tool.def.summary(tool.def.output.parse(result));
      return {
        content: [
          { type: 'text', text: summary },
          { type: 'text', text: JSON.stringify(structuredContent) },
        ],
        structuredContent,
      };
    } catch (err) {
      if (err instanceof AppError && err.code === 'RATE_LIMITED') deps.onRateLimited?.();
      if (err instanceof AppError && err.status < 500 && err.code !== 'INTERNAL') {
        log.info({ code: err.code, ms: deps.clock.now() - started }, err.message);
        return errorResult(err, requestId);
      }
      if (err instanceof AppError && err.code !== 'INTERNAL') {
        log.warn({ code: err.code }, err.message);
        return errorResult(err, requestId);
      }
      log.error({ err }, 'tool call failed');
      return errorResult(new AppError('INTERNAL', `Internal error; quote request id ${requestId} when reporting it`), requestId);
    }
  }

  async function charged(authInfo: AuthInfo | undefined): Promise<AuthContext> {
    const context = contextOf(authInfo);
    try {
      await takeFromBudget(deps.rateStore, context, deps.clock.now());
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === 'RATE_LIMITED') deps.onRateLimited?.();
      throw new McpError(ErrorCode.InvalidRequest, err.message, { code: err.code, retryAfterSeconds: Number(err.extra.headers?.['retry-after']) });
    }
    return context;
  }

  return {
    tools: compiled,
    /** A new server instance (one per transport). */
    create(): Server {
      const server = new Server(
        { name: 'tidings', title: 'Tidings', version: deps.version },
        { capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } }, instructions: deps.instructions },
      );
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
      server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
        const tool = byName.get(request.params.name);
        if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; tools/list names them`);
        return call(tool, request.params.arguments ?? {}, contextOf(extra.authInfo), extra.signal);
      });
      for (const extend of deps.extensions ?? []) extend(server, charged);
      server.onerror = (err) => deps.logger.warn({ err }, 'MCP protocol error');
      return server;
    },
  };
}

export type McpServerFactory = ReturnType<typeof createMcpServerFactory>;
