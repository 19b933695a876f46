import type { RouteOptions } from 'fastify';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers.js';
import { API_PREFIX } from '../http/openapi.js';
import { compileTools } from './server.js';
import { jsonSchemaOf, type RouteKey } from './tool.js';
import { allTools } from './tools/index.js';

/**
 * Every public route has its MCP tool, on the same schemas: for each route of /public/v1 the test
 * finds the tool that declares it and compares, part by part (path parameters, query, body), the
 * route's registered zod schema with the tool's, then checks that each field of the route is an
 * argument of the tool with the same JSON Schema. A route or a field added without its tool fails.
 */

/** Routes with no tool, each with its reason. Nothing else may be missing. */
const NOT_TOOLS: Record<string, string> = {
  'POST /upload': 'a multipart file upload: an assistant passes a URL to upload_media_from_url instead',
  'GET /analytics/overview.csv': 'the same figures as get_analytics_overview, as a CSV file for spreadsheets',
  'PUT /ai/settings': "the organisation's model endpoint and its key: set by an owner or admin in Settings → Writing help, not by an assistant",
  'DELETE /ai/settings': 'turning writing help off is a settings decision for an owner or admin, in Settings → Writing help',
  'POST /imports': 'a file upload (CSV, JSON, NDJSON or multipart) with no JSON body schema to share; get_import and export_posts cover the rest',
};
/** The web app's own routes (people, keys, approvals) refuse API keys and tokens: no tool can call them. */
const isSessionOnly = (route: RouteOptions) => (route.schema as { tags?: string[] } | undefined)?.tags?.includes('Web app') === true;

const routes: RouteOptions[] = [];
const { t } = useTestApp({ onRoute: (route) => void routes.push(route) });

function publicRoutes() {
  const seen = new Map<RouteKey, RouteOptions>();
  for (const route of routes) {
    const schema = route.schema;
    if (!route.url.startsWith(`${API_PREFIX}/`) || schema?.hide || isSessionOnly(route)) continue;
    for (const method of [route.method].flat()) {
      if (method === 'HEAD') continue;
      seen.set(`${method} ${route.url.slice(API_PREFIX.length)}` as RouteKey, route);
    }
  }
  return seen;
}

const withoutDescriptions = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutDescriptions);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => k !== 'description').map(([k, v]) => [k, withoutDescriptions(v)]));
};

describe('MCP tools cover the public API', () => {
  it('finds the public routes (the test sees what the app registered)', () => {
    expect(t.app).toBeDefined();
    const keys = [...publicRoutes().keys()];
    expect(keys).toEqual(expect.arrayContaining(['POST /posts', 'GET /integrations', 'DELETE /posts/:id', 'GET /media']));
    expect(keys.length).toBeGreaterThan(40);
  });

  it('every public route has a tool with the same params, query and body schemas, each field an argument', () => {
    const tools = compileTools(allTools(t.deps.services));
    const byRoute = new Map(tools.filter((x) => x.def.route).map((x) => [x.def.route!, x]));
    const problems: string[] = [];
    for (const [key, route] of publicRoutes()) {
      if (key in NOT_TOOLS) continue;
      const tool = byRoute.get(key);
      if (!tool) {
        problems.push(`${key}: no MCP tool declares this route (add one in src/mcp/tools/, or a reason in NOT_TOOLS)`);
        continue;
      }
      const schema = (route.schema ?? {}) as { params?: z.ZodType; querystring?: z.ZodType; body?: z.ZodType };
      for (const [part, routePart] of [['params', schema.params], ['query', schema.querystring], ['body', schema.body]] as const) {
        const toolPart = tool.def.input[part];
        if (!routePart && !toolPart) continue;
        if (!routePart || !toolPart) {
          problems.push(`${key} → ${tool.def.name}: the route ${routePart ? 'has' : 'has no'} ${part}, the tool ${toolPart ? 'has' : 'has no'} ${part}`);
          continue;
        }
        const routeJson = jsonSchemaOf(routePart, 'input');
        if (JSON.stringify(routeJson) !== JSON.stringify(jsonSchemaOf(toolPart, 'input'))) {
          problems.push(`${key} → ${tool.def.name}: the tool's ${part} schema differs from the route's (use the route's exported schema)`);
          continue;
        }
        if (part === 'body' && tool.def.bodyArgument) {
          const argument = tool.inputSchema.properties?.[tool.def.bodyArgument];
          if (JSON.stringify(withoutDescriptions(argument)) !== JSON.stringify(withoutDescriptions(routeJson))) problems.push(`${key} → ${tool.def.name}: argument ${tool.def.bodyArgument} is not the route's body`);
          continue;
        }
        const properties = (routeJson.properties ?? {}) as Record<string, unknown>;
        for (const [field, fieldSchema] of Object.entries(properties)) {
          const name = tool.def.rename?.[`${part}.${field}`] ?? field;
          const argument = tool.inputSchema.properties?.[name];
          if (!argument) {
            problems.push(`${key} → ${tool.def.name}: ${part}.${field} is not an argument of the tool`);
            continue;
          }
          if (JSON.stringify(withoutDescriptions(argument)) !== JSON.stringify(withoutDescriptions(fieldSchema))) {
            problems.push(`${key} → ${tool.def.name}: argument ${name} is not the route's ${part}.${field}`);
          }
          const routeRequired = ((routeJson.required ?? []) as string[]).includes(field);
          if (routeRequired !== (tool.inputSchema.required ?? []).includes(name)) problems.push(`${key} → ${tool.def.name}: ${name} is required on one side only`);
        }
      }
    }
    for (const tool of tools) {
      if (tool.def.route && !publicRoutes().has(tool.def.route)) problems.push(`${tool.def.name} names ${tool.def.route}, which is not a public route`);
    }
    expect(problems).toEqual([]);
  });

  it('no route is both excused and covered, and every excuse names a real route', () => {
    const covered = new Set(allTools(t.deps.services).map((x) => x.route));
    const known = publicRoutes();
    for (const key of Object.keys(NOT_TOOLS)) {
      expect(known.has(key as RouteKey), key).toBe(true);
      expect(covered.has(key as RouteKey), key).toBe(false);
    }
  });

  it('tools are named once, every argument is described, and read-only tools are the GET routes', () => {
    const tools = compileTools(allTools(t.deps.services));
    for (const tool of tools) {
      expect(tool.def.name).toMatch(/^[a-z][a-z0-9_]*$|^[a-z][A-Za-z0-9]*$/);
      expect(tool.def.description.length, tool.def.name).toBeGreaterThan(40);
      // a model acts on what each argument means: every one is described (the route's words or a hint)
      const undescribed = Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>).filter(([, p]) => !p.description?.trim());
      expect(undescribed.map(([name]) => name), `${tool.def.name}: arguments without a description`).toEqual([]);
      if (tool.def.route) {
        const isGet = tool.def.route.startsWith('GET ');
        // a GET never changes anything; a change is never marked read-only (except platform look-ups, which POST)
        if (isGet) expect(tool.def.annotations.readOnlyHint, tool.def.name).toBe(true);
        if (tool.def.annotations.destructiveHint) expect(tool.def.annotations.readOnlyHint, tool.def.name).toBe(false);
      }
    }
  });
});
