import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';
import { deref, type Schema, type SchemaObject } from './schema-arbitrary.js';

/** The service's own OpenAPI document, read as the fuzz tier needs it: operations and validators. */

export interface OpenApiDocument {
  servers?: { url: string }[];
  paths: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema> };
}

interface ParameterObject {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema?: Schema;
}

interface OperationObject {
  parameters?: ParameterObject[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}

export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  schema: SchemaObject;
}

export interface Operation {
  /** `POST /posts/{id}` */
  name: string;
  method: string;
  /** relative to the server URL, with `{param}` placeholders */
  path: string;
  params: Parameter[];
  /** the JSON body's schema, when the document declares one */
  jsonBody?: { schema: Schema; required: boolean };
  /** other body media types the document declares (multipart/form-data…) */
  otherBodyTypes: string[];
  /** documented statuses, as numbers (`default`, `4XX` are kept as text) */
  statuses: Set<string>;
  /** response body schemas by status */
  responseSchemas: Map<string, Schema>;
  /** the media types each status documents (a CSV download lists text/csv) */
  responseTypes: Map<string, string[]>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

export function operationsOf(doc: OpenApiDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params: Parameter[] = (op.parameters ?? [])
        .filter((p): p is ParameterObject & { in: Parameter['in'] } => p.in !== 'cookie')
        .map((p) => {
          const s = deref(p.schema ?? {}, doc);
          return { in: p.in, name: p.name, required: p.required === true || p.in === 'path', schema: typeof s === 'object' ? s : {} };
        });
      const content = op.requestBody?.content ?? {};
      const json = content['application/json'];
      const responseSchemas = new Map<string, Schema>();
      const responseTypes = new Map<string, string[]>();
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        const schema = r.content?.['application/json']?.schema;
        if (schema !== undefined) responseSchemas.set(status, schema);
        responseTypes.set(status, Object.keys(r.content ?? {}));
      }
      out.push({
        name: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        params,
        jsonBody: json ? { schema: json.schema ?? {}, required: op.requestBody?.required === true } : undefined,
        otherBodyTypes: Object.keys(content).filter((t) => t !== 'application/json'),
        statuses: new Set(Object.keys(op.responses ?? {})),
        responseSchemas,
        responseTypes,
      });
    }
  }
  return out;
}

/** Is `status` one the operation documents (exactly, as `4XX`, or through `default`)? */
export function isDocumented(op: Operation, status: number): boolean {
  return op.statuses.has(String(status)) || op.statuses.has(`${String(status)[0]}XX`) || op.statuses.has('default');
}

/** ajv (draft 2020-12, with formats) holding the document, so `#/components/...` refs resolve. */
export function createValidators(doc: OpenApiDocument) {
  // strict: false — OpenAPI documents carry keywords JSON Schema does not know (`example`…).
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  formatsModule.default(ajv);
  const DOC_ID = 'https://tidings.invalid/openapi.json';
  ajv.addSchema({ $id: DOC_ID, components: doc.components ?? {} });
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${DOC_ID}${v}` : rewrite(v);
    return out;
  };
  const cache = new Map<string, ValidateFunction>();
  return {
    /** Validates `value` against `schema` (a piece of the document); returns ajv's error text or undefined. */
    check(key: string, schema: Schema, value: unknown): string | undefined {
      let validate = cache.get(key);
      if (!validate) {
        validate = ajv.compile(rewrite(schema) as object);
        cache.set(key, validate);
      }
      if (validate(value)) return undefined;
      return ajv.errorsText(validate.errors, { separator: '; ', dataVar: 'body' });
    },
  };
}

export type Validators = ReturnType<typeof createValidators>;
