import fc from 'fast-check';
import { deref, typesOf, type Schema, type SchemaObject } from './schema-arbitrary.js';

/**
 * The mutation layer: takes a VALID body and breaks one place of it at a time (remove it, swap its
 * type, go out of range, NUL, lone surrogates, very deep nesting, huge arrays and strings, unknown
 * keys), or the whole of it (just over the body limit). Bodies are JSON values that may hold two
 * markers: `RawJson` (text sent as is: nesting JSON.stringify would overflow on, numbers JSON
 * cannot carry) and `Fill` (padding sized at serialisation so the whole body has an exact size).
 */

/** JSON text inserted verbatim where this sits in a body. */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
  [fc.toStringMethod]() {
    return `<raw JSON: ${this.label}>`;
  }
}

/** A string or array sized so that the serialised body is exactly `totalBytes` long. */
export class Fill {
  constructor(
    readonly kind: 'string' | 'wide-string' | 'array',
    readonly totalBytes: number,
  ) {}
  [fc.toStringMethod]() {
    return `<${this.kind} filling the body to ${this.totalBytes} bytes>`;
  }
}

export type MutationKind =
  | 'remove'
  | 'type-swap'
  | 'out-of-range'
  | 'nul'
  | 'lone-surrogate'
  | 'deep-nesting'
  | 'huge-array'
  | 'huge-string'
  | 'unknown-key'
  | 'over-limit';

export interface Mutation {
  kind: MutationKind;
  /** where, as `a.b.0.c` (`(root)` for the whole body) */
  at: string;
  /** what was done, for the counterexample */
  what: string;
  /** the documented schema marks the removed key as required and gives it no default */
  removedRequired?: boolean;
  /** the body is over the JSON body limit: 413 expected */
  overLimit?: boolean;
}

export interface MutatedBody {
  value: unknown;
  mutation: Mutation;
}

type Path = (string | number)[];

interface Place {
  path: Path;
  value: unknown;
  schema: SchemaObject | undefined;
  /** key in the parent object, if the parent is an object */
  key?: string;
  required?: boolean;
  hasDefault?: boolean;
}

const pathText = (p: Path) => (p.length === 0 ? '(root)' : p.join('.'));

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (Number.isInteger(v)) return 'integer';
  return typeof v;
}

/** The branch of an anyOf/oneOf (or the schema itself) describing a value of this JSON type. */
function schemaForValue(schema: Schema | undefined, value: unknown, root: unknown): SchemaObject | undefined {
  if (schema === undefined || typeof schema === 'boolean') return undefined;
  const s = deref(schema, root);
  if (typeof s === 'boolean') return undefined;
  const branches = s.anyOf ?? s.oneOf;
  if (!branches) return s;
  const t = jsonType(value);
  for (const b of branches) {
    const d = deref(b, root);
    if (typeof d === 'boolean') continue;
    const types = typesOf(d);
    if (types.includes(t) || (t === 'integer' && types.includes('number')) || ('const' in d && d.const === value) || d.enum?.includes(value)) return d;
  }
  return undefined;
}

/** Objects built from JSON; class instances (RawJson, Fill, a caller's id references) are leaves. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Every place of `value` (itself included), with the schema describing it where known. */
export function placesOf(value: unknown, schema: Schema | undefined, root: unknown): Place[] {
  const out: Place[] = [];
  const walk = (v: unknown, s: SchemaObject | undefined, path: Path, extra: Partial<Place>) => {
    out.push({ path, value: v, schema: s, ...extra });
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, schemaForValue(s?.items, item, root), [...path, i], {}));
    } else if (isPlainObject(v)) {
      for (const [k, item] of Object.entries(v)) {
        const sub = s?.properties?.[k] ?? (typeof s?.additionalProperties === 'object' ? s.additionalProperties : undefined);
        const subDeref = sub === undefined ? undefined : deref(sub, root);
        walk(item, schemaForValue(sub, item, root), [...path, k], {
          key: k,
          required: s?.required?.includes(k) ?? false,
          hasDefault: typeof subDeref === 'object' && 'default' in subDeref,
        });
      }
    }
  };
  walk(value, schemaForValue(schema, value, root), [], {});
  return out;
}

/** A copy of `root` with the value at `path` replaced (or removed when `remove`). */
export function replaceAt(root: unknown, path: Path, next: unknown, remove = false): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root] as unknown[];
    copy[head as number] = replaceAt(copy[head as number], rest, next, remove);
    return copy;
  }
  const obj = root as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) {
    if (k !== head) {
      defineKey(copy, k, obj[k]);
    } else if (rest.length > 0 || !remove) {
      defineKey(copy, k, rest.length === 0 ? next : replaceAt(obj[k], rest, next, remove));
    }
  }
  return copy;
}

/** Sets an own, enumerable key, `__proto__` included (an assignment would set the prototype). */
export function defineKey(obj: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** `depth` levels of arrays or objects, as text (JSON.stringify would recurse that deep). */
export function deepText(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const TYPE_SWAPS: [string, unknown][] = [
  ['null', null],
  ['boolean', true],
  ['integer', 0],
  ['integer', -1],
  ['number', 1.5],
  ['string', ''],
  ['string', 'x'],
  ['array', []],
  ['object', {}],
];

function typeSwaps(v: unknown): fc.Arbitrary<[string, unknown]> {
  const t = jsonType(v);
  const others = TYPE_SWAPS.filter(([type]) => type !== t && !(t === 'number' && type === 'integer'));
  return fc.oneof(
    fc.constantFrom(...others),
    // the same value one level down: `[x]`, `{"value": x}`
    fc.constant<[string, unknown]>(['wrapped in an array', [v]]),
    fc.constant<[string, unknown]>(['wrapped in an object', { value: v }]),
  );
}

/** Values just outside what the schema at this place admits (empty when it admits everything). */
function outOfRange(s: SchemaObject | undefined): [string, unknown][] {
  if (!s) return [];
  const out: [string, unknown][] = [];
  if (s.enum) out.push(['a value not in the enum', `NOT_${String(s.enum[0])}_X`]);
  if ('const' in s) out.push(['not the constant', typeof s.const === 'string' ? `${s.const}_X` : 'X']);
  const types = typesOf(s);
  if (types.includes('string')) {
    if (s.maxLength !== undefined) out.push([`${s.maxLength + 1} characters (maxLength ${s.maxLength})`, 'a'.repeat(s.maxLength + 1)]);
    // maxLength counts code points: one over it in characters outside the BMP (twice the UTF-16
    // units), and the longest text that is still in range when units are not what is counted
    if (s.maxLength !== undefined) out.push([`${s.maxLength + 1} astral characters (maxLength ${s.maxLength})`, '😀'.repeat(s.maxLength + 1)]);
    if (s.maxLength !== undefined && s.maxLength > 1) {
      const n = Math.ceil((s.maxLength + 1) / 2);
      out.push([`${n} astral characters: ${2 * n} UTF-16 units, still in range (maxLength ${s.maxLength} counts code points)`, '😀'.repeat(n)]);
    }
    if ((s.minLength ?? 0) > 0) out.push([`an empty string (minLength ${s.minLength})`, '']);
    if (s.format) out.push([`not a ${s.format}`, `not-a-${s.format}`]);
    if (s.pattern) out.push(['not matching the pattern', '\u0001!']);
  }
  if (types.includes('integer') || types.includes('number')) {
    if (s.maximum !== undefined) out.push([`maximum + 1 (${s.maximum + 1})`, s.maximum + 1]);
    if (s.exclusiveMaximum !== undefined) out.push([`exclusiveMaximum (${s.exclusiveMaximum})`, s.exclusiveMaximum]);
    if (s.minimum !== undefined) out.push([`minimum - 1 (${s.minimum - 1})`, s.minimum - 1]);
    if (s.exclusiveMinimum !== undefined) out.push([`exclusiveMinimum (${s.exclusiveMinimum})`, s.exclusiveMinimum]);
    if (types.includes('integer') && !types.includes('number')) out.push(['a fraction', 0.5]);
    out.push(['2^53 + 1', new RawJson('9007199254740993', '2^53 + 1')]);
    out.push(['1e400 (Infinity once parsed)', new RawJson('1e400', '1e400')]);
    out.push(['-0', new RawJson('-0', '-0')]);
    out.push(['1e-400 (0 once parsed)', new RawJson('1e-400', '1e-400')]);
    out.push(['a 400-digit number', new RawJson('9'.repeat(400), '400 digits')]);
  }
  if (types.includes('array')) {
    if (s.maxItems !== undefined) out.push([`${s.maxItems + 1} items (maxItems ${s.maxItems})`, new Array<unknown>(s.maxItems + 1).fill(null)]);
    if ((s.minItems ?? 0) > 0) out.push([`no items (minItems ${s.minItems})`, []]);
  }
  return out;
}

const SURROGATES = ['\ud800', '\udfff', '\udc00\ud800', 'a\ud83d'];
const UNKNOWN_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '', ' ', 'a'.repeat(10_000), '$where', 'x.y', 'k\u0000'];

function insertAt(s: string, i: number, piece: string) {
  const at = Math.min(i, s.length);
  return s.slice(0, at) + piece + s.slice(at);
}

/**
 * One mutation of `body` (a valid value of `schema`). `limitBytes` is the JSON body limit:
 * huge values stay under it, `over-limit` goes just over it.
 */
export function mutationOf(body: unknown, schema: Schema | undefined, root: unknown, limitBytes: number): fc.Arbitrary<MutatedBody> {
  const places = placesOf(body, schema, root);
  const objects = places.filter((p) => isPlainObject(p.value));
  const keyed = places.filter((p) => p.key !== undefined);
  const nonRoot = places.filter((p) => p.path.length > 0);
  const at = (p: Place) => pathText(p.path);
  const set = (p: Place, v: unknown, kind: MutationKind, what: string, extra: Partial<Mutation> = {}): MutatedBody => ({
    value: replaceAt(body, p.path, v),
    mutation: { kind, at: at(p), what, ...extra },
  });
  // Big, and just under the limit (the limit itself is for `over-limit`).
  const hugeSize = fc.constantFrom(...[64 * 1024, 1024 * 1024].filter((n) => n < limitBytes - 2048), limitBytes - 2048);
  const options: fc.WeightedArbitrary<MutatedBody>[] = [];

  if (keyed.length > 0) {
    options.push({
      weight: 3,
      arbitrary: fc.constantFrom(...keyed).map((p) => ({
        value: replaceAt(body, p.path, undefined, true),
        mutation: { kind: 'remove' as const, at: at(p), what: `removed ${p.required ? 'required ' : ''}key`, removedRequired: p.required === true && p.hasDefault !== true },
      })),
    });
  }
  if (nonRoot.length > 0) {
    const anyPlace = fc.constantFrom(...nonRoot);
    options.push({
      weight: 3,
      arbitrary: anyPlace.chain((p) => typeSwaps(p.value).map(([type, v]) => set(p, v, 'type-swap', `replaced by ${type}`))),
    });
    const ranged = nonRoot.filter((p) => outOfRange(p.schema).length > 0);
    if (ranged.length > 0) {
      options.push({
        weight: 3,
        arbitrary: fc.constantFrom(...ranged).chain((p) => fc.constantFrom(...outOfRange(p.schema)).map(([what, v]) => set(p, v, 'out-of-range', what))),
      });
    }
    const strings = nonRoot.filter((p) => typeof p.value === 'string');
    const stringPlace = strings.length > 0 ? fc.constantFrom(...strings) : anyPlace;
    options.push({
      weight: 2,
      arbitrary: fc.tuple(stringPlace, fc.nat({ max: 50 })).map(([p, i]) =>
        set(p, typeof p.value === 'string' ? insertAt(p.value, i, '\u0000') : 'a\u0000b', 'nul', 'U+0000 inserted'),
      ),
    });
    options.push({
      weight: 2,
      arbitrary: fc.tuple(stringPlace, fc.nat({ max: 50 }), fc.constantFrom(...SURROGATES)).map(([p, i, sur]) =>
        set(p, typeof p.value === 'string' ? insertAt(p.value, i, sur) : sur, 'lone-surrogate', `${JSON.stringify(sur)} inserted`),
      ),
    });
    options.push({
      weight: 1,
      arbitrary: fc
        .tuple(anyPlace, fc.constantFrom(1000, 10_000, 100_000), fc.constantFrom('array' as const, 'object' as const))
        .map(([p, depth, kind]) => set(p, new RawJson(deepText(depth, kind), `${depth} nested ${kind}s`), 'deep-nesting', `${depth} levels of ${kind}s`)),
    });
    options.push({
      weight: 1,
      arbitrary: fc.tuple(anyPlace, hugeSize).map(([p, size]) => set(p, new Fill('array', size), 'huge-array', `an array filling the body to ${size} bytes`)),
    });
    options.push({
      weight: 1,
      arbitrary: fc
        .tuple(stringPlace, hugeSize, fc.constantFrom('string' as const, 'wide-string' as const))
        .map(([p, size, kind]) => set(p, new Fill(kind, size), 'huge-string', `a ${kind === 'wide-string' ? 'two-byte-character ' : ''}string filling the body to ${size} bytes`)),
    });
  }
  if (objects.length > 0) {
    options.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...objects), fc.constantFrom(...UNKNOWN_KEYS), fc.constantFrom<unknown>({ polluted: true }, null, 'x', 1, []))
        .map(([p, key, v]) => {
          const copy: Record<string, unknown> = {};
          for (const [k, x] of Object.entries(p.value as Record<string, unknown>)) defineKey(copy, k, x);
          defineKey(copy, key, v);
          return set(p, copy, 'unknown-key', `unknown key ${JSON.stringify(key.length > 20 ? `${key.slice(0, 20)}…(${key.length})` : key)}`);
        }),
    });
  }
  // The whole body just over the limit, whatever it holds: 413 and nothing else.
  options.push({
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 64 * 1024 }).map((over) => {
      const size = limitBytes + over;
      const padded = isPlainObject(body)
          ? { ...body, padding: new Fill('string', size) }
          : [body, new Fill('string', size)];
      return { value: padded, mutation: { kind: 'over-limit' as const, at: '(root)', what: `${size} bytes, ${over} over the limit`, overLimit: true } };
    }),
  });
  return fc.oneof(...options);
}

function serialise(v: unknown, fill: string): string {
  if (v instanceof RawJson) return v.text;
  if (v instanceof Fill) return fill;
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : serialise(x, fill))).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const parts: string[] = [];
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) parts.push(`${JSON.stringify(k)}:${serialise(x, fill)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(v);
}

function findFill(v: unknown): Fill | undefined {
  if (v instanceof Fill) return v;
  if (v instanceof RawJson || v === null || typeof v !== 'object') return undefined;
  for (const x of Object.values(v)) {
    const f = findFill(x);
    if (f) return f;
  }
  return undefined;
}

/** The JSON text of a body that may hold `RawJson` and (one) `Fill`. */
export function jsonText(value: unknown): string {
  const fill = findFill(value);
  if (!fill) return serialise(value, '');
  // Measured with a 2-byte placeholder (`[]` or `""`), so the filler gets room + 2 bytes.
  const base = Buffer.byteLength(serialise(value, '""'));
  const room = Math.max(0, fill.totalBytes - base);
  const n = Math.floor(room / 2);
  let core: string;
  if (fill.kind === 'array') core = n === 0 ? '[]' : `[${'0,'.repeat(n - 1)}0]`; // 2 bytes an item
  else if (fill.kind === 'wide-string') core = `"${'é'.repeat(n)}"`; // 2 bytes a character in UTF-8
  else core = `"${'x'.repeat(room)}"`;
  // JSON allows whitespace after a value: it makes up the last byte or two.
  return serialise(value, core + ' '.repeat(Math.max(0, room + 2 - Buffer.byteLength(core))));
}

/** `value` with every marker described instead of expanded (for counterexamples). */
export function describeBody(value: unknown): unknown {
  if (value instanceof RawJson) return `<raw: ${value.label}>`;
  if (value instanceof Fill) return `<${value.kind} filling the body to ${value.totalBytes} bytes>`;
  if (Array.isArray(value)) return value.length > 20 ? [...value.slice(0, 20).map(describeBody), `…${value.length - 20} more`] : value.map(describeBody);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) defineKey(out, k, describeBody((value as Record<string, unknown>)[k]));
    return out;
  }
  if (typeof value === 'string' && value.length > 200) return `${value.slice(0, 200)}…(${value.length} characters)`;
  return value;
}
