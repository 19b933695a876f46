import fc from 'fast-check';
import { PLATFORM_IDENTIFIERS } from '../../src/platforms/platform.js';
import type { SentRequest } from './client.js';
import { defineKey, describeBody, isPlainObject, jsonText, mutationOf, type Mutation } from './mutations.js';
import type { OpenApiDocument, Operation, Parameter } from './openapi.js';
import { arbitraryFor, text, type Hint, type SchemaObject, type SchemaPath } from './schema-arbitrary.js';
import { Ref, refArb, type OrgName, type PoolKind, type World } from './world.js';

/**
 * One generated request of an operation, in five flavours: `valid` (parameters and body the
 * document admits, pointing at real objects part of the time), `body` (one mutation of a valid
 * body), `params` (one path, query or header parameter hostile), `envelope` (the body's framing:
 * content type, malformed JSON, invalid UTF-8, a body where none belongs) and `auth`.
 */

/** A parameter's value as it goes on the wire: already encoded (or deliberately malformed). */
export class Wire {
  constructor(
    readonly wire: string,
    readonly label?: string,
  ) {}
  [fc.toStringMethod]() {
    return this.label === undefined ? JSON.stringify(this.wire.length > 60 ? `${this.wire.slice(0, 60)}…` : this.wire) : `<${this.label}>`;
  }
}

/** Bytes of a body or file, printed by their label in counterexamples. */
export class Bytes {
  constructor(
    readonly data: Buffer,
    readonly label: string,
  ) {}
  [fc.toStringMethod]() {
    return `<${this.label}, ${this.data.length} bytes>`;
  }
}

export type ParamValue = Wire | Ref;

export type BodyPlan =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown; contentType?: string }
  | { kind: 'bytes'; data: Bytes; contentType?: string }
  | { kind: 'multipart'; parts: Part[]; truncate?: boolean; boundary?: string };

export interface Part {
  field: string;
  filename?: string;
  type?: string;
  data: Bytes | string;
}

export type AuthChoice = OrgName | 'missing' | 'empty' | 'bearer' | 'invalid' | 'lowercase' | 'padded';

export interface RequestCase {
  flavour: 'valid' | 'body' | 'params' | 'envelope' | 'auth';
  path: Record<string, ParamValue>;
  query: [string, ParamValue][] | { raw: string };
  headers: Record<string, string>;
  body: BodyPlan;
  auth: AuthChoice;
  mutation?: Mutation;
  note: string;
}

const enc = (s: string): ParamValue => new Wire(encodeURIComponent(s));
const raw = (wire: string, label?: string): ParamValue => new Wire(wire, label);

/** Hostile path or query values, each as sent (some malformed on purpose). */
export const HOSTILE_VALUES: ParamValue[] = [
  raw('', 'empty'),
  raw('%20', 'a space'),
  raw('a'.repeat(999), '999 characters'),
  raw('a'.repeat(1001), '1001 characters (over maxParamLength 1000)'),
  raw('a'.repeat(5000), '5000 characters'),
  raw('%00', 'percent-encoded NUL'),
  raw('abc%00def', 'NUL inside'),
  raw('%E0%A4%A', 'truncated percent-encoding'),
  raw('%', 'a lone %'),
  raw('%zz', 'not hex'),
  raw('%C0%AF', 'overlong UTF-8'),
  raw('%ED%A0%80', 'UTF-8 of a lone surrogate'),
  raw('%FF%FE', 'invalid UTF-8'),
  raw('..', 'dot-dot'),
  raw('..%2F..%2Fetc%2Fpasswd', 'encoded ../'),
  raw('../../etc/passwd', 'raw ../'),
  raw('%2e%2e', 'encoded dot-dot'),
  enc('😀'),
  enc('é'),
  enc('\u202e'),
  enc('日本語'),
  raw('-1'),
  raw('0'),
  raw('1.5'),
  raw('1e309'),
  raw('99999999999999999999999999'),
  raw('-9007199254740993'),
  raw('NaN'),
  raw('null'),
  raw('undefined'),
  raw('true'),
  raw('%5B%5D', '[]'),
  raw('%7B%7D', '{}'),
  raw('00000000-0000-0000-0000-000000000000', 'nil uuid'),
  raw('ffffffff-ffff-ffff-ffff-ffffffffffff', 'max uuid'),
  raw('6f1c2a3e-8d4b-4c1a-9e2f-0a1b2c3d4e5f', 'uuid of nothing'),
  raw('6F1C2A3E-8D4B-4C1A-9E2F-0A1B2C3D4E5F', 'upper-case uuid of nothing'),
  raw('%27%20OR%201%3D1--', "' OR 1=1--"),
  raw('%3Cscript%3E', '<script>'),
  raw('x%0D%0ASet-Cookie%3A%20a%3Db', 'CRLF'),
  raw('%09', 'a tab'),
];

/** The wire text of a value: a reference is resolved and percent-encoded, as a client would. */
export function wireOf(v: ParamValue, world: World): string {
  return v instanceof Ref ? encodeURIComponent(world.resolve(v)) : v.wire;
}

/** Which pool a path or query parameter's ids come from, read from its name and the route. */
function poolFor(op: Operation, name: string): PoolKind | undefined {
  const first = op.path.split('/')[1] ?? '';
  if (name === 'integrationId' || name === 'refresh') return 'channel';
  if (name === 'postId') return 'post';
  if (name === 'group' && first === 'posts') return 'postGroup';
  if (name === 'customer' || name === 'group') return 'group';
  if (name !== 'id') return undefined;
  if (['integrations', 'integration-settings', 'find-slot', 'integration-trigger'].includes(first)) return 'channel';
  if (first === 'groups') return 'group';
  if (first === 'posts') return 'post';
  if (first === 'media') return 'media';
  return undefined;
}

/** ISO instants and near misses, for the date fields and queries. */
const dates = fc.oneof(
  fc.date({ min: new Date('2090-01-01T00:00:00Z'), max: new Date('2150-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    '2099-01-01',
    '2099-01-01T10:00:00+02:00',
    '2099-01-01 10:00',
    ' 2099-01-01T10:00:00Z ',
    '2031-02-30T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '+010000-01-01T00:00:00Z',
    '1969-12-31T23:59:59Z',
    '2099-13-01T00:00:00Z',
    'now',
    '',
  ),
);

/** The values a field takes besides its schema's own, by where it sits in the body. */
function hintFor(op: Operation, world: World, upload: { urls: string[] }): Hint {
  return (path: SchemaPath, schema: SchemaObject) => {
    const last = path[path.length - 1];
    const parent = path[path.length - 2];
    const isString = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
    if (last === 'id' && parent === 'integration') return refArb('channel', { nearMiss: true });
    if (parent === 'image' && last === '[]' && isString) return refArb('media', { nearMiss: true });
    if (path.at(-2) === '[]' && path.at(-3) === 'image' && last === 'id') return refArb('media', { nearMiss: true });
    if (path.at(-2) === '[]' && path.at(-3) === 'image' && last === 'path') return refArb('mediaPath', { foreign: true });
    if (parent === '[]' && path.at(-3) === 'value' && last === 'id') return refArb('post', { nearMiss: true });
    if (last === 'group' && path.length > 1) return refArb('postGroup');
    if (last === 'customer') return refArb('group', { nearMiss: true });
    if (last === 'date' && op.path === '/posts') return dates;
    // `inter` (repeat every n days) is documented as any value and refused whatever it is (not
    // supported yet): left out most of the time so the rest of the body gets looked at.
    if (last === 'inter' && path.length === 1) return fc.constant(undefined);
    if (last === 'url' && op.path === '/upload-from-url') return fc.constantFrom(...upload.urls);
    if (last === 'methodName' && world.toolNames.length > 0) return fc.constantFrom(...world.toolNames);
    if (last === 'settings' && world.settingsArbitraries.length > 0) return fc.oneof(...world.settingsArbitraries);
    if (path.length === 0 && op.path === '/social/{identifier}' && op.method === 'POST' && world.credentialArbitraries.length > 0) {
      return fc.oneof(...world.credentialArbitraries);
    }
    return undefined;
  };
}

function paramArb(op: Operation, p: Parameter, doc: OpenApiDocument, world: World, hint: Hint): fc.Arbitrary<ParamValue> {
  const pool = poolFor(op, p.name);
  if (p.name === 'identifier') {
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...PLATFORM_IDENTIFIERS).map(enc) }, { weight: 1, arbitrary: text({ minLength: 1, maxLength: 20 }).map(enc) });
  }
  if (p.in === 'header') return fc.string({ unit: 'grapheme-ascii', minLength: p.schema.minLength ?? 0, maxLength: Math.min(p.schema.maxLength ?? 64, 64) }).map((s) => raw(s));
  if (p.name === 'startDate' || p.name === 'endDate') return dates.map(enc);
  if (p.name === 'instanceUrl') {
    return fc.oneof(fc.constantFrom('https://mastodon.social', 'mastodon.social', 'https://mastodon.social/@someone').map(enc), text({ maxLength: 30 }).map(enc));
  }
  const own = arbitraryFor(p.schema, { root: doc, hint }).map((v) => enc(typeof v === 'string' ? v : JSON.stringify(v)));
  return pool ? fc.oneof({ weight: 3, arbitrary: refArb(pool, { nearMiss: true }) }, { weight: 1, arbitrary: own }) : own;
}

/** A body for an operation the document gives no body schema (as `POST /upload` today): multipart files, JSON, nothing. */
function undocumentedBody(world: World): fc.Arbitrary<BodyPlan> {
  const file = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...world.files).map((f) => ({ data: new Bytes(f.data, f.name), filename: f.name })) },
    // over the fuzz app's image cap (64 KiB), PNG magic first so the type is known early
    { weight: 1, arbitrary: fc.constant({ data: new Bytes(Buffer.concat([world.files[0]!.data.subarray(0, 64), Buffer.alloc(70 * 1024)]), 'a PNG over the image cap'), filename: 'big.png' }) },
    // not a media type at all
    { weight: 1, arbitrary: fc.constant({ data: new Bytes(Buffer.from('just some text, not a picture\n'.repeat(20)), 'text'), filename: 'notes.txt' }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ data: new Bytes(Buffer.from(b), 'random bytes'), filename: 'random.bin' })) },
  );
  const filename = fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('a\u0000b.png', '../../etc/passwd', '', ' ', 'é😀.png', 'a'.repeat(2000), 'x".png', 'con.png', '.png', 'a\ud800.png', 'a\r\nb.png'),
    },
  );
  const fieldName = fc.oneof({ weight: 5, arbitrary: fc.constant('file') }, { weight: 1, arbitrary: fc.constantFrom('files', 'upload', '', 'file\u0000') });
  const multipartBody = fc
    .tuple(file, filename, fieldName, fc.constantFrom('application/octet-stream', 'image/png', 'text/plain', ''), fc.boolean(), fc.boolean())
    .map(([f, name, field, type, truncate, withField]): BodyPlan => ({
      kind: 'multipart',
      truncate: truncate && withField,
      parts: [...(withField ? [{ field: 'note', data: 'hello' }] : []), { field, filename: name ?? f.filename, type: type || undefined, data: f.data }],
    }));
  return fc.oneof(
    { weight: 5, arbitrary: multipartBody },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'none' }) },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'multipart', parts: [{ field: 'note', data: 'no file here' }] }) },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'multipart', parts: [] }) },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'multipart', parts: [], boundary: '' }) },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ kind: 'json', value: { file: 'not a file' } }) },
  );
}

/** Variations on how a body is framed, whatever it holds. */
function envelopeOf(op: Operation, validText: fc.Arbitrary<string>): fc.Arbitrary<{ body: BodyPlan; note: string }> {
  const bytes = (data: Buffer | string, contentType: string | undefined, label: string) => ({
    body: { kind: 'bytes' as const, data: new Bytes(Buffer.from(data), label), contentType },
    note: label,
  });
  return validText.chain((t) =>
    fc.oneof(
      fc.nat({ max: Math.max(0, t.length - 1) }).map((n) => bytes(t.slice(0, n), 'application/json', `JSON cut after ${n} characters`)),
      fc.constant(bytes(t, undefined, 'a JSON body without Content-Type')),
      fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data', 'application/json; charset=utf-16', 'application/json; charset=latin1', 'application/vnd.api+json', 'invalid', 'application/json, text/plain').map((ct) => bytes(t, ct, `a JSON body sent as ${ct}`)),
      fc.constant(bytes(`\ufeff${t}`, 'application/json', 'a byte-order mark before the JSON')),
      fc.constant(bytes(Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from('"}')]), 'application/json', 'invalid UTF-8 inside a JSON string')),
      fc.constantFrom('{', '}', '[', 'nul', 'NaN', "{'a':1}", '{"a":1,}', '{"a":1}{"b":2}', '"just a string"', '42', 'null', 'true', '[]', '{"a":1,"a":2}', '{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}').map((s) =>
        bytes(s, 'application/json', `the JSON text ${JSON.stringify(s)}`),
      ),
      fc.constant(bytes('', 'application/json', 'an empty body declared as JSON')),
      fc.constant(bytes('   \n\t ', 'application/json', 'a whitespace body declared as JSON')),
      op.method === 'GET' || op.method === 'DELETE' ? fc.constant(bytes(t, 'application/json', `a JSON body on ${op.method}`)) : fc.constant(bytes(t, 'application/json', 'the valid body')),
    ),
  );
}

/** Query parameters in ways a client should not send them. */
function hostileQuery(op: Operation, valid: [string, ParamValue][]): fc.Arbitrary<{ query: [string, ParamValue][] | { raw: string }; note: string }> {
  const names = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const options: fc.Arbitrary<{ query: [string, ParamValue][] | { raw: string }; note: string }>[] = [
    fc.constantFrom('%', '%E0%A4%A', '=', '&&&', '?', 'a=%00', `${'x'.repeat(10_000)}=1`, 'a[b]=1', 'a[]=1&a[]=2', '__proto__[polluted]=1', 'constructor[prototype][polluted]=1').map((r) => ({
      query: { raw: r },
      note: `raw query ${JSON.stringify(r.length > 40 ? `${r.slice(0, 40)}…` : r)}`,
    })),
  ];
  if (names.length > 0) {
    const name = fc.constantFrom(...names);
    options.push(
      fc.tuple(name, fc.constantFrom(...HOSTILE_VALUES)).map(([n, v]) => ({
        query: [...valid.filter(([k]) => k !== n), [n, v] as [string, ParamValue]],
        note: `query ${n} = ${v instanceof Ref ? String(v) : (v.label ?? v.wire.slice(0, 60))}`,
      })),
      name.map((n) => ({ query: [...valid, [n, raw('1')], [n, raw('2')]] as [string, ParamValue][], note: `query ${n} twice` })),
      name.map((n) => ({ query: [...valid.filter(([k]) => k !== n), [`${n}[]`, raw('1')], [`${n}[x]`, raw('2')]] as [string, ParamValue][], note: `query ${n} in bracket syntax` })),
      name.map((n) => ({ query: valid.filter(([k]) => k !== n), note: `query ${n} left out` })),
    );
  }
  return fc.oneof(...options);
}

export interface CaseContext {
  doc: OpenApiDocument;
  world: World;
  bodyLimit: number;
  /** URLs upload-from-url may be given (the tier's own local server among them) */
  uploadUrls: string[];
}

export function requestCaseArb(op: Operation, ctx: CaseContext): fc.Arbitrary<RequestCase> {
  const { doc, world } = ctx;
  const hint = hintFor(op, world, { urls: ctx.uploadUrls });
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');

  const pathArb = fc.record(Object.fromEntries(pathParams.map((p) => [p.name, paramArb(op, p, doc, world, hint)]))) as fc.Arbitrary<Record<string, ParamValue>>;
  const queryArb = fc
    .tuple(...queryParams.map((p) => (p.required ? paramArb(op, p, doc, world, hint).map((v) => [[p.name, v]]) : fc.option(paramArb(op, p, doc, world, hint), { nil: undefined }).map((v) => (v === undefined ? [] : [[p.name, v]])))))
    .map((parts) => parts.flat() as [string, ParamValue][]);
  const headerArb = fc.tuple(...headerParams.map((p) => fc.option(paramArb(op, p, doc, world, hint), { nil: undefined }).map((v) => [p.name, v] as const))).map((pairs) => {
    const h: Record<string, string> = {};
    for (const [name, v] of pairs) if (v instanceof Wire) h[name] = v.wire;
    return h;
  });
  const bodyArb: fc.Arbitrary<BodyPlan> = op.jsonBody
    ? arbitraryFor(op.jsonBody.schema, { root: doc, hint }).map((value) => ({ kind: 'json' as const, value }))
    : ['POST', 'PUT', 'PATCH'].includes(op.method)
      ? undocumentedBody(world)
      : fc.constant({ kind: 'none' as const });
  const validArb = fc.record({ path: pathArb, query: queryArb, headers: headerArb, body: bodyArb });
  const base = (v: { path: Record<string, ParamValue>; query: [string, ParamValue][]; headers: Record<string, string>; body: BodyPlan }): RequestCase => ({
    flavour: 'valid',
    ...v,
    auth: 'A',
    note: 'valid parameters and body',
  });

  const flavours: fc.WeightedArbitrary<RequestCase>[] = [{ weight: 4, arbitrary: validArb.map(base) }];
  if (op.jsonBody) {
    const schema = op.jsonBody.schema;
    flavours.push({
      weight: 5,
      arbitrary: validArb.chain((v) =>
        v.body.kind === 'json'
          ? mutationOf(v.body.value, schema, doc, ctx.bodyLimit).map((m) => ({
              ...base(v),
              flavour: 'body' as const,
              body: { kind: 'json' as const, value: m.value },
              mutation: m.mutation,
              note: `body ${m.mutation.kind} at ${m.mutation.at}: ${m.mutation.what}`,
            }))
          : fc.constant(base(v)),
      ),
    });
  }
  if (pathParams.length > 0) {
    flavours.push({
      weight: 3,
      arbitrary: fc.tuple(validArb, fc.constantFrom(...pathParams.map((p) => p.name)), fc.constantFrom(...HOSTILE_VALUES)).map(([v, name, value]) => ({
        ...base(v),
        flavour: 'params' as const,
        path: { ...v.path, [name]: value },
        note: `path ${name} = ${value instanceof Ref ? String(value) : (value.label ?? value.wire.slice(0, 60))}`,
      })),
    });
  }
  flavours.push({
    weight: queryParams.length > 0 ? 2 : 1,
    arbitrary: validArb.chain((v) => hostileQuery(op, v.query).map((q) => ({ ...base(v), flavour: 'params' as const, query: q.query, note: q.note }))),
  });
  if (headerParams.length > 0) {
    flavours.push({
      weight: 1,
      arbitrary: fc
        .tuple(validArb, fc.constantFrom(...headerParams.map((p) => p.name)), fc.constantFrom('', ' ', 'a'.repeat(256), 'a'.repeat(8000), '\t', 'é'))
        .map(([v, name, value]) => ({ ...base(v), flavour: 'params' as const, headers: { ...v.headers, [name]: value === 'é' ? Buffer.from('é').toString('latin1') : value }, note: `header ${name} of ${value.length} characters` })),
    });
  }
  const validText = bodyArb.map((b) => (b.kind === 'json' ? jsonText(resolveBody(b.value, world)) : '{}'));
  flavours.push({
    weight: 1,
    arbitrary: fc.tuple(validArb, envelopeOf(op, validText)).map(([v, e]) => ({ ...base(v), flavour: 'envelope' as const, body: e.body, note: e.note })),
  });
  flavours.push({
    weight: 1,
    arbitrary: fc
      .tuple(validArb, fc.constantFrom<AuthChoice>('B', 'missing', 'empty', 'bearer', 'invalid', 'lowercase', 'padded'))
      .map(([v, auth]) => ({ ...base(v), flavour: 'auth' as const, auth, note: `credential: ${auth}` })),
  });
  return fc.oneof(...flavours);
}

/** The body with every `Ref` replaced by the id it names now. */
export function resolveBody(value: unknown, world: World): unknown {
  if (value instanceof Ref) return world.resolve(value);
  if (Array.isArray(value)) return value.map((v) => resolveBody(v, world));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value)) defineKey(out, k, resolveBody(value[k], world));
    return out;
  }
  return value;
}

const BOUNDARY = '----tidings-fuzz-boundary';

function multipartBytes(parts: Part[], truncate: boolean, boundary = BOUNDARY): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.field}"${p.filename === undefined ? '' : `; filename="${p.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`));
    chunks.push(typeof p.data === 'string' ? Buffer.from(p.data) : p.data.data);
    chunks.push(Buffer.from('\r\n'));
  }
  if (!truncate) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

export const credentialFor = (auth: AuthChoice, world: World): string | undefined => {
  const a = world.orgs.A.apiKey;
  switch (auth) {
    case 'A':
      return a;
    case 'B':
      return world.orgs.B.apiKey;
    case 'missing':
      return undefined;
    case 'empty':
      return '';
    case 'bearer':
      return `Bearer ${a}`;
    case 'invalid':
      return `${a.slice(0, -4)}zzzz`;
    case 'lowercase':
      return a.toLowerCase() === a ? a.toUpperCase() : a.toLowerCase();
    case 'padded':
      return `  ${a}  `;
  }
};

/** Does this credential choice stand for no valid credential at all? */
export const isBadAuth = (auth: AuthChoice) => ['missing', 'empty', 'bearer', 'invalid', 'lowercase'].includes(auth);

/** The request as it goes on the wire, and a readable account of its body. */
export function toSent(op: Operation, c: RequestCase, world: World, prefix: string): { sent: SentRequest; bodyNote: string } {
  let path = op.path;
  for (const [name, v] of Object.entries(c.path)) path = path.replace(`{${name}}`, wireOf(v, world));
  let query = '';
  if ('raw' in c.query) query = `?${c.query.raw}`;
  else if (c.query.length > 0) query = `?${c.query.map(([k, v]) => `${encodeURIComponent(k)}=${wireOf(v, world)}`).join('&')}`;
  const headers: Record<string, string> = { ...c.headers };
  const credential = credentialFor(c.auth, world);
  if (credential !== undefined) headers.authorization = credential;
  let body: Buffer | undefined;
  let bodyNote = '(none)';
  switch (c.body.kind) {
    case 'none':
      break;
    case 'json': {
      const resolved = resolveBody(c.body.value, world);
      body = Buffer.from(jsonText(resolved));
      headers['content-type'] = c.body.contentType ?? 'application/json';
      bodyNote = JSON.stringify(describeBody(resolved)).slice(0, 600);
      break;
    }
    case 'bytes':
      body = c.body.data.data;
      if (c.body.contentType !== undefined) headers['content-type'] = c.body.contentType;
      bodyNote = c.body.data.label;
      break;
    case 'multipart':
      body = multipartBytes(c.body.parts, c.body.truncate === true, c.body.boundary === '' ? BOUNDARY : undefined);
      headers['content-type'] = c.body.boundary === '' ? 'multipart/form-data' : `multipart/form-data; boundary=${BOUNDARY}`;
      bodyNote = `multipart: ${c.body.parts.map((p) => `${JSON.stringify(p.field)}${p.filename === undefined ? '' : ` file ${JSON.stringify(p.filename.slice(0, 40))} (${typeof p.data === 'string' ? p.data.length : p.data.data.length} bytes)`}`).join(', ') || 'no parts'}${c.body.truncate ? ', no closing boundary' : ''}`;
      break;
  }
  return { sent: { method: op.method, url: `${prefix}${path}${query}`, headers, body, ownConnection: c.body.kind === 'multipart' }, bodyNote };
}
