import fc from 'fast-check';

/**
 * JSON Schema (draft 2020-12, the subset zod 4 emits) → a fast-check arbitrary of VALID values.
 *
 * Covered: `$ref` (into the document given as `root`), `const`, `enum`, `anyOf`/`oneOf`, `allOf`
 * (merged), type arrays, object (`properties`, `required`, `additionalProperties`), array (`items`,
 * `minItems`, `maxItems`), string (`minLength`, `maxLength`, `pattern`, `format` date-time, date,
 * uri, uuid, email), number/integer (`minimum`, `maximum`, `exclusive*`), boolean, null, and `{}`
 * (any JSON value). Unknown keywords are ignored, so a schema using them may get values it refuses;
 * the unit test checks the generated values against ajv for the schemas we meet.
 *
 * Sizes are kept small on purpose (strings of a few dozen characters, arrays of a few items): the
 * mutation layer (`mutations.ts`) is what goes to the extremes.
 */

export type Schema = boolean | SchemaObject;
export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  default?: unknown;
  [keyword: string]: unknown;
}

/** Where a value sits in the generated document: property names, and `[]` for array items. */
export type SchemaPath = readonly string[];

/**
 * A hook that offers values of its own for some places (ids of real objects, real dates…). What it
 * returns is mixed with the schema's own values, so both kinds are generated.
 */
export type Hint = (path: SchemaPath, schema: SchemaObject) => fc.Arbitrary<unknown> | undefined;

export interface ArbitraryOptions {
  /** the document `$ref`s point into (`#/components/schemas/X`) */
  root?: unknown;
  hint?: Hint;
  /** how much of the mix the hint's values get (default 6 against the schema's 1) */
  hintWeight?: number;
}

const MAX_EXTRA_LENGTH = 40;
// eslint-disable-next-line no-control-regex -- exactly what it matches
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const MAX_EXTRA_ITEMS = 2;

/** Follows a local JSON pointer (`#/a/b`) in `root`. */
export function resolvePointer(root: unknown, ref: string): Schema {
  if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported, not ${ref}`);
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (node === null || typeof node !== 'object' || !(key in node)) throw new Error(`$ref ${ref} does not resolve`);
    node = (node as Record<string, unknown>)[key];
  }
  return node as Schema;
}

/** The schema with its `$ref` (repeatedly) followed and `allOf` merged. */
export function deref(schema: Schema, root: unknown): Schema {
  let s = schema;
  for (let hops = 0; typeof s === 'object' && s.$ref !== undefined; hops++) {
    if (hops > 32) throw new Error(`$ref cycle at ${s.$ref}`);
    const { $ref, ...rest } = s;
    const target = resolvePointer(root, $ref);
    s = Object.keys(rest).length === 0 || typeof target !== 'object' ? target : { ...target, ...rest };
  }
  if (typeof s === 'object' && s.allOf) s = mergeAllOf(s, root);
  return s;
}

function mergeAllOf(schema: SchemaObject, root: unknown): SchemaObject {
  const { allOf, ...base } = schema;
  let out: SchemaObject = base;
  for (const part of allOf ?? []) {
    const p = deref(part, root);
    if (typeof p === 'boolean') continue;
    out = {
      ...out,
      ...p,
      properties: { ...out.properties, ...p.properties },
      required: [...new Set([...(out.required ?? []), ...(p.required ?? [])])],
    };
  }
  return out;
}

/** The JSON types a schema admits, from `type` or, without one, from the keywords present. */
export function typesOf(s: SchemaObject): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.properties || s.additionalProperties !== undefined || s.required) return ['object'];
  if (s.items || s.minItems !== undefined || s.maxItems !== undefined) return ['array'];
  if (s.minLength !== undefined || s.maxLength !== undefined || s.pattern || s.format) return ['string'];
  if (s.minimum !== undefined || s.maximum !== undefined) return ['number'];
  return [];
}

/** Printable text: mostly ASCII, some of the rest of Unicode (never NUL or lone surrogates). */
export function text(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  const minLength = constraints.minLength ?? 0;
  const maxLength = Math.min(constraints.maxLength ?? minLength + MAX_EXTRA_LENGTH, minLength + MAX_EXTRA_LENGTH);
  return fc
    .oneof(
      { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength, maxLength }) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength }) },
    )
    // JSON Schema counts code points, zod counts UTF-16 units; keep both satisfied. Control
    // characters (NUL among them) are the mutation layer's business, not valid text's.
    .filter((s) => s.length >= minLength && s.length <= (constraints.maxLength ?? Infinity) && !CONTROL.test(s));
}

/** Any JSON value, a few levels deep. */
export function anyJson(depth = 2): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -1000, max: 1000 }), fc.double({ noNaN: true, noDefaultInfinity: true }), text());
  if (depth <= 0) return leaf;
  const inner = anyJson(depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 1, arbitrary: fc.array(inner, { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(text({ maxLength: 10 }), inner, { maxKeys: 3 }) },
  );
}

function stringFor(s: SchemaObject): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = s.maxLength;
  const fits = (v: string) => v.length >= minLength && (maxLength === undefined || v.length <= maxLength);
  const pattern = s.pattern === undefined ? undefined : new RegExp(s.pattern, 'u');
  const matches = (v: string) => fits(v) && (pattern === undefined || pattern.test(v));
  switch (s.format) {
    case 'date-time':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T23:59:59Z'), noInvalidDate: true })
        .map((d) => d.toISOString())
        .filter(matches);
    case 'date':
      return fc
        .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10))
        .filter(matches);
    case 'uri':
      return fc.webUrl({ withQueryParameters: true }).filter(matches);
    case 'uuid':
      return fc.uuid().filter(matches);
    case 'email':
      return fc.emailAddress().filter(matches);
    default:
      break;
  }
  if (pattern) return fc.stringMatching(pattern).filter(matches);
  return text({ minLength, maxLength });
}

function numberFor(s: SchemaObject, integer: boolean): fc.Arbitrary<number> {
  if (integer) {
    let min = s.minimum ?? (s.exclusiveMinimum !== undefined ? Math.floor(s.exclusiveMinimum) + 1 : Number.MIN_SAFE_INTEGER);
    let max = s.maximum ?? (s.exclusiveMaximum !== undefined ? Math.ceil(s.exclusiveMaximum) - 1 : Number.MAX_SAFE_INTEGER);
    min = Math.max(Math.ceil(min), Number.MIN_SAFE_INTEGER);
    max = Math.min(Math.floor(max), Number.MAX_SAFE_INTEGER);
    // Small values are the interesting ones (pages, minutes); the bounds themselves too.
    const small = fc.integer({ min: Math.max(min, -1000), max: Math.min(max, 1000) });
    const bounds = fc.constantFrom(min, max);
    return min <= 1000 && max >= -1000
      ? fc.oneof({ weight: 4, arbitrary: small }, { weight: 1, arbitrary: bounds }, { weight: 1, arbitrary: fc.integer({ min, max }) })
      : fc.oneof(bounds, fc.integer({ min, max }));
  }
  return fc.double({
    noNaN: true,
    noDefaultInfinity: true,
    ...(s.minimum !== undefined ? { min: s.minimum } : s.exclusiveMinimum !== undefined ? { min: s.exclusiveMinimum, minExcluded: true } : {}),
    ...(s.maximum !== undefined ? { max: s.maximum } : s.exclusiveMaximum !== undefined ? { max: s.exclusiveMaximum, maxExcluded: true } : {}),
  });
}

function objectFor(s: SchemaObject, path: SchemaPath, opts: ArbitraryOptions, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = s.properties ?? {};
  const required = new Set(s.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, sub] of Object.entries(properties)) model[key] = build(sub, [...path, key], opts, depth + 1);
  // Required keys the schema does not describe can hold anything.
  for (const key of required) if (!(key in model)) model[key] = anyJson(1);
  const known = fc.record(model, { requiredKeys: [...required].filter((k) => k in model) });
  const extra = s.additionalProperties;
  if (extra === false || extra === undefined) return known;
  const name = text({ minLength: 1, maxLength: 12 }).filter((k) => !(k in model) && k !== '__proto__');
  const extras = fc.dictionary(name, build(extra, [...path, '*'], opts, depth + 1), { maxKeys: 2 });
  return fc.tuple(known, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extras })).map(([k, e]) => ({ ...e, ...k }));
}

function build(schema: Schema, path: SchemaPath, opts: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if (depth > 40) throw new Error(`schema nested too deep at ${path.join('.')} (a recursive $ref?)`);
  const s = deref(schema, opts.root);
  if (s === true) return anyJson();
  if (s === false) throw new Error(`no value satisfies the schema at ${path.join('.')}`);
  const own = ownValues(s, path, opts, depth);
  const hinted = opts.hint?.(path, s);
  return hinted ? fc.oneof({ weight: opts.hintWeight ?? 6, arbitrary: hinted }, { weight: 1, arbitrary: own }) : own;
}

function ownValues(s: SchemaObject, path: SchemaPath, opts: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  if ('const' in s) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (branches) {
    const { anyOf: _a, oneOf: _o, ...shared } = s;
    return fc.oneof(
      ...branches.map((b) => {
        const d = deref(b, opts.root);
        return build(typeof d === 'object' ? { ...shared, ...d } : d, path, opts, depth + 1);
      }),
    );
  }
  const types = typesOf(s);
  if (types.length === 0) return anyJson();
  if (types.length > 1) return fc.oneof(...types.map((type) => ownValues({ ...s, type }, path, opts, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberFor(s, true);
    case 'number':
      return numberFor(s, false);
    case 'string':
      return stringFor(s);
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.min(s.maxItems ?? minLength + MAX_EXTRA_ITEMS, minLength + MAX_EXTRA_ITEMS);
      return fc.array(s.items === undefined ? anyJson(1) : build(s.items, [...path, '[]'], opts, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectFor(s, path, opts, depth);
    default:
      throw new Error(`unsupported type ${String(types[0])} at ${path.join('.')}`);
  }
}

/** Valid values of `schema` (with `$ref`s into `opts.root`). */
export function arbitraryFor(schema: Schema, opts: ArbitraryOptions = {}): fc.Arbitrary<unknown> {
  return build(schema, [], opts, 0);
}
