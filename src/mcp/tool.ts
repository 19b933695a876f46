import { z } from 'zod';
import type { AuthContext } from '../modules/auth/auth.service.js';
import { AppError, validationError, type FieldError } from '../errors.js';

/** A JSON Schema object as MCP carries it (`inputSchema`, `outputSchema`). */
export type JsonSchema = { type: 'object'; properties?: Record<string, object>; required?: string[]; [k: string]: unknown };

/** What a tool call runs with: who calls (the same context an API request has) and for which request. */
export interface ToolContext {
  auth: AuthContext;
  organizationId: string;
  requestId: string;
  /** aborted when the client cancels the call or goes away */
  signal: AbortSignal;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
/** The public route a tool covers, as `METHOD /path` under /public/v1 with Fastify's `:param` names. */
export type RouteKey = `${Method} /${string}`;

type ObjectSchema = z.ZodType<Record<string, unknown>, Record<string, unknown>>;

/**
 * The parts of a route's request, given as the very zod schemas the route declares (so a field added
 * to the route is a field of the tool): path parameters, query string and body.
 */
export interface RouteParts {
  params?: ObjectSchema;
  query?: ObjectSchema;
  body?: z.ZodType;
}

type PartName = keyof RouteParts;
type Parsed<P extends RouteParts> = { [K in keyof P]: P[K] extends z.ZodType ? z.output<P[K]> : never };

export interface ToolAnnotations {
  /** the tool changes nothing: a read-only token may call it */
  readOnlyHint: boolean;
  /** it removes or overwrites something the user may not get back */
  destructiveHint?: boolean;
  /** calling it twice with the same arguments has no further effect */
  idempotentHint?: boolean;
  /** it reaches a social platform or another outside service */
  openWorldHint?: boolean;
}

export interface ToolDefinition<P extends RouteParts = RouteParts, O extends z.ZodType = z.ZodType> {
  name: string;
  title: string;
  /** what the tool does, when to use it, and which tool gives the ids it needs */
  description: string;
  /** the public route whose schemas and service method the tool shares; absent for tools of MCP only */
  route?: RouteKey;
  input: P;
  /** a part's field under another argument name (`{ 'params.id': 'postId' }`) where `id` would be unclear or collide */
  rename?: Partial<Record<`${PartName}.${string}`, string>>;
  /** a body that is not an object of known fields (a record) is passed as this one argument */
  bodyArgument?: string;
  /** extra guidance per argument for a model (added to the field's own description) */
  hints?: Record<string, string>;
  /** the route's success response schema */
  output: O;
  /** a response that is not an object is returned as this one field of `structuredContent` */
  outputKey?: string;
  annotations: ToolAnnotations;
  run(ctx: ToolContext, args: Parsed<P>): Promise<z.input<O>>;
  /** one line for the text part of the result */
  summary(result: z.output<O>): string;
}

/** Declares a tool with its types checked (the argument types come from the route's schemas). */
export function defineTool<P extends RouteParts, O extends z.ZodType>(def: ToolDefinition<P, O>): ToolDefinition {
  return def;
}

const CONVERT = { unrepresentable: 'any', target: 'draft-7', reused: 'inline' } as const;

/**
 * JSON Schema of a zod schema as a client sends (`input`) or receives (`output`) it: no `$schema`,
 * and the named schemas (`.meta({ id })`) written in place, since many assistants read no `$ref`.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, definitions, ...rest } = z.toJSONSchema(schema, { ...CONVERT, io }) as Record<string, unknown>;
  return inlineRefs(rest, (definitions ?? {}) as Record<string, unknown>, new Set()) as Record<string, unknown>;
}

function inlineRefs(node: unknown, definitions: Record<string, unknown>, open: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, definitions, open));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const name = typeof $ref === 'string' && $ref.startsWith('#/definitions/') ? $ref.slice('#/definitions/'.length) : undefined;
  if (name !== undefined) {
    if (open.has(name) || !(name in definitions)) throw new Error(`JSON Schema: cannot write #/definitions/${name} in place (recursive or missing)`);
    const inlined = inlineRefs(definitions[name], definitions, new Set([...open, name])) as Record<string, unknown>;
    return { ...inlined, ...(inlineRefs(rest, definitions, open) as Record<string, unknown>) };
  }
  return Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, inlineRefs(v, definitions, open)]));
}

interface ArgumentSource {
  part: PartName;
  /** the field's name in its part; undefined: the whole body */
  field?: string;
}

/** A tool ready to serve: its JSON Schemas and how to read arguments and shape results. */
export interface CompiledTool {
  def: ToolDefinition;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** tool argument → where it goes in the route's request */
  sources: Map<string, ArgumentSource>;
  parse(args: Record<string, unknown>): Record<string, unknown>;
  shape(result: unknown): Record<string, unknown>;
}

function objectProperties(schema: Record<string, unknown>): { properties: Record<string, object>; required: string[] } | undefined {
  if (schema.type !== 'object' || typeof schema.properties !== 'object' || schema.properties === null) return undefined;
  return { properties: schema.properties as Record<string, object>, required: (schema.required as string[] | undefined) ?? [] };
}

function withHint(property: object, hint: string | undefined): object {
  if (!hint) return property;
  const own = (property as { description?: string }).description;
  return { ...property, description: own ? `${hint} (${own})` : hint };
}

/** Checks a definition and builds its JSON Schemas; throws on a definition that cannot work. */
export function compileTool(def: ToolDefinition): CompiledTool {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  const sources = new Map<string, ArgumentSource>();
  const add = (name: string, property: object, source: ArgumentSource, isRequired: boolean) => {
    if (sources.has(name)) throw new Error(`MCP tool ${def.name}: argument "${name}" comes from two parts of the request; rename one`);
    sources.set(name, source);
    properties[name] = withHint(property, def.hints?.[name]);
    if (isRequired) required.push(name);
  };
  for (const part of ['params', 'query', 'body'] as const) {
    const schema = def.input[part];
    if (!schema) continue;
    const json = jsonSchemaOf(schema, 'input');
    const object = objectProperties(json);
    if (!object || (part === 'body' && def.bodyArgument)) {
      if (part !== 'body' || !def.bodyArgument) throw new Error(`MCP tool ${def.name}: the ${part} schema is not an object of fields; give bodyArgument`);
      add(def.bodyArgument, json, { part }, true);
      continue;
    }
    for (const [field, property] of Object.entries(object.properties)) {
      add(def.rename?.[`${part}.${field}`] ?? field, property, { part, field }, object.required.includes(field));
    }
  }
  for (const hinted of Object.keys(def.hints ?? {})) {
    if (!sources.has(hinted)) throw new Error(`MCP tool ${def.name}: a hint names "${hinted}", which is not an argument`);
  }
  const inputSchema: JsonSchema = { type: 'object', properties, ...(required.length ? { required } : {}) };

  const outputJson = jsonSchemaOf(def.output, 'output');
  let outputSchema: JsonSchema;
  if (def.outputKey) {
    outputSchema = { type: 'object', properties: { [def.outputKey]: outputJson }, required: [def.outputKey] };
  } else if (outputJson.type === 'object') {
    outputSchema = outputJson as JsonSchema;
  } else {
    throw new Error(`MCP tool ${def.name}: the output is not an object; give outputKey`);
  }

  return {
    def,
    inputSchema,
    outputSchema,
    sources,
    parse(args) {
      const raw: Record<PartName, unknown> = { params: {}, query: {}, body: def.input.body && !def.bodyArgument ? {} : undefined };
      const unknownArgs: FieldError[] = [];
      for (const [name, value] of Object.entries(args)) {
        const source = sources.get(name);
        if (!source) {
          // a body that keeps unknown fields (looseObject) takes them, as the route would
          if (def.input.body && !def.bodyArgument) (raw.body as Record<string, unknown>)[name] = value;
          else unknownArgs.push({ path: name, message: `Unknown argument; this tool takes ${[...sources.keys()].join(', ') || 'none'}` });
          continue;
        }
        if (source.field === undefined) raw[source.part] = value;
        else (raw[source.part] as Record<string, unknown>)[source.field] = value;
      }
      if (unknownArgs.length) throw validationError(unknownArgs);
      const parsed: Record<string, unknown> = {};
      const fields: FieldError[] = [];
      for (const part of ['params', 'query', 'body'] as const) {
        const schema = def.input[part];
        if (!schema) continue;
        const r = schema.safeParse(raw[part]);
        if (r.success) {
          parsed[part] = r.data;
          continue;
        }
        for (const issue of r.error.issues) fields.push({ path: argumentPath(part, issue.path), message: issue.message });
      }
      if (fields.length) throw validationError(fields);
      return parsed;
    },
    shape(result) {
      const encoded = z.safeEncode(def.output, result);
      if (!encoded.success) {
        throw new AppError('INTERNAL', `MCP tool ${def.name} produced a result its output schema refuses: ${encoded.error.message}`);
      }
      // as JSON would carry it (no undefined, dates as text)
      const plain = JSON.parse(JSON.stringify(encoded.data ?? null)) as unknown;
      return def.outputKey ? { [def.outputKey]: plain } : (plain as Record<string, unknown>);
    },
  };

  function argumentPath(part: PartName, path: PropertyKey[]): string {
    if (part === 'body' && def.bodyArgument) return [def.bodyArgument, ...path.map(String)].join('.');
    const [first, ...rest] = path.map(String);
    if (first === undefined) return part === 'body' ? 'arguments' : part;
    const name = def.rename?.[`${part}.${first}`] ?? first;
    return [name, ...rest].join('.');
  }
}
