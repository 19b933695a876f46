import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { currentSimulatorMode, mediaFetch, startSimulator, type InjectedKind, type Simulator } from '../simulator.js';

/**
 * A simulator of Hashnode's GraphQL API (`POST https://gql.hashnode.com`), a real (small) GraphQL
 * endpoint for the operations Tidings uses: the document is parsed (syntax errors → 400
 * `GRAPHQL_PARSE_FAILED`), every selected field and argument is checked against the schema of
 * the types below (unknown field, missing required argument, object without a selection → 400
 * `GRAPHQL_VALIDATION_FAILED`), variables are checked against their declarations and input types
 * (a required one missing, a required input field missing, an unknown input field → 400
 * `BAD_USER_INPUT`), and the answer is projected to exactly what was selected, aliases included.
 *
 * Resolver errors come as Apollo answers them, under HTTP 200: `{ data, errors: [{ message, path,
 * extensions: { code } }] }` — `UNAUTHENTICATED` without a valid `Authorization` token (with or
 * without `Bearer `), `FORBIDDEN` for a publication the user is not a member of or one without the Pro plan the API's
 * writes require, `BAD_USER_INPUT`
 * for an invalid post (title, tags 1–5 that exist, canonical URL, a cover that cannot be fetched),
 * `NOT_FOUND`. The cover (`coverImageOptions.coverImageURL`) is FETCHED through `mediaOrigins`
 * and its bytes hashed. Mutations are rate limited per token per minute: HTTP 429 with
 * `Retry-After`, as Hashnode's CDN answers.
 */

export const HASHNODE_GQL_ORIGIN = 'https://gql.hashnode.com';

// ---------------------------------------------------------------- a small GraphQL parser

type Value = { kind: 'var'; name: string } | { kind: 'lit'; value: unknown } | { kind: 'list'; items: Value[] } | { kind: 'obj'; fields: Record<string, Value> };
interface Field {
  alias: string;
  name: string;
  args: Record<string, Value>;
  selections: Field[] | null;
}
interface Operation {
  type: 'query' | 'mutation';
  name: string | null;
  variables: Record<string, string>;
  selections: Field[];
}

export class GqlSyntaxError extends Error {}

function tokenize(src: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (/[\s,\uFEFF]/.test(c)) i++;
    else if (c === '#') while (i < src.length && src[i] !== '\n') i++;
    else if ('{}()[]:!$=@|&'.includes(c)) tokens.push(src[i++]!);
    else if (src.startsWith('...', i)) {
      tokens.push('...');
      i += 3;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== '"') {
        if (src[j] === '\\') {
          const n = src[j + 1];
          s += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'u' ? String.fromCharCode(parseInt(src.slice(j + 2, j + 6), 16)) : n;
          j += n === 'u' ? 6 : 2;
        } else s += src[j++];
      }
      if (j >= src.length) throw new GqlSyntaxError('Syntax Error: Unterminated string.');
      tokens.push(JSON.stringify(s));
      i = j + 1;
    } else {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?|^[_A-Za-z][_0-9A-Za-z]*/.exec(src.slice(i));
      if (!m) throw new GqlSyntaxError(`Syntax Error: Unexpected character: "${c}".`);
      tokens.push(m[0]);
      i += m[0].length;
    }
  }
  return tokens;
}

export function parseOperation(src: string, operationName?: string | null): Operation {
  const t = tokenize(src);
  let p = 0;
  const peek = () => t[p];
  const next = () => {
    if (p >= t.length) throw new GqlSyntaxError('Syntax Error: Unexpected <EOF>.');
    return t[p++]!;
  };
  const expect = (s: string) => {
    const got = next();
    if (got !== s) throw new GqlSyntaxError(`Syntax Error: Expected "${s}", found "${got}".`);
  };
  const name = () => {
    const n = next();
    if (!/^[_A-Za-z]/.test(n)) throw new GqlSyntaxError(`Syntax Error: Expected Name, found "${n}".`);
    return n;
  };
  const type = (): string => {
    let s: string;
    if (peek() === '[') {
      next();
      s = `[${type()}]`;
      expect(']');
    } else s = name();
    if (peek() === '!') {
      next();
      s += '!';
    }
    return s;
  };
  const value = (): Value => {
    const n = peek();
    if (n === '$') {
      next();
      return { kind: 'var', name: name() };
    }
    if (n === '[') {
      next();
      const items: Value[] = [];
      while (peek() !== ']') items.push(value());
      next();
      return { kind: 'list', items };
    }
    if (n === '{') {
      next();
      const fields: Record<string, Value> = {};
      while (peek() !== '}') {
        const k = name();
        expect(':');
        fields[k] = value();
      }
      next();
      return { kind: 'obj', fields };
    }
    const tok = next();
    if (tok.startsWith('"')) return { kind: 'lit', value: JSON.parse(tok) as string };
    if (/^-?\d/.test(tok)) return { kind: 'lit', value: Number(tok) };
    if (tok === 'true' || tok === 'false') return { kind: 'lit', value: tok === 'true' };
    if (tok === 'null') return { kind: 'lit', value: null };
    if (/^[_A-Za-z]/.test(tok)) return { kind: 'lit', value: tok };
    throw new GqlSyntaxError(`Syntax Error: Unexpected "${tok}".`);
  };
  const selectionSet = (): Field[] => {
    expect('{');
    const out: Field[] = [];
    while (peek() !== '}') {
      if (peek() === '...') throw new GqlSyntaxError('Syntax Error: fragments are not supported by this simulator.');
      const alias = name();
      let fieldName = alias;
      if (peek() === ':') {
        next();
        fieldName = name();
      }
      const args: Record<string, Value> = {};
      if (peek() === '(') {
        next();
        while (peek() !== ')') {
          const k = name();
          expect(':');
          args[k] = value();
        }
        next();
      }
      const selections = peek() === '{' ? selectionSet() : null;
      out.push({ alias, name: fieldName, args, selections });
    }
    next();
    return out;
  };
  const ops: Operation[] = [];
  while (p < t.length) {
    let opType: 'query' | 'mutation' = 'query';
    let opName: string | null = null;
    const variables: Record<string, string> = {};
    if (peek() !== '{') {
      const kw = next();
      if (kw !== 'query' && kw !== 'mutation') throw new GqlSyntaxError(`Syntax Error: Unexpected Name "${kw}".`);
      opType = kw;
      if (peek() !== '(' && peek() !== '{') opName = name();
      if (peek() === '(') {
        next();
        while (peek() !== ')') {
          expect('$');
          const v = name();
          expect(':');
          variables[v] = type();
          if (peek() === '=') {
            next();
            value();
          }
        }
        next();
      }
    }
    ops.push({ type: opType, name: opName, variables, selections: selectionSet() });
  }
  if (ops.length === 0) throw new GqlSyntaxError('Syntax Error: Unexpected <EOF>.');
  if (ops.length === 1) return ops[0]!;
  const chosen = ops.find((o) => o.name === operationName);
  if (!chosen) throw new GqlRequestError('Must provide operation name if query contains multiple operations.', 'BAD_REQUEST');
  return chosen;
}

// ---------------------------------------------------------------- the schema it answers

interface FieldDef {
  type: string;
  args?: Record<string, string>;
}
const OBJECTS: Record<string, Record<string, FieldDef>> = {
  Query: {
    me: { type: 'MyUser' },
    tag: { type: 'Tag', args: { slug: 'String!' } },
    publication: { type: 'Publication', args: { id: 'ObjectId', host: 'String' } },
    post: { type: 'Post', args: { id: 'ID!' } },
  },
  Mutation: { publishPost: { type: 'PublishPostPayload!', args: { input: 'PublishPostInput!' } } },
  MyUser: {
    id: { type: 'ID!' },
    username: { type: 'String!' },
    name: { type: 'String!' },
    email: { type: 'String!' },
    profilePicture: { type: 'String' },
    publications: { type: 'PublicationConnection!', args: { first: 'Int!', after: 'String' } },
  },
  PublicationConnection: { edges: { type: '[PublicationEdge!]!' }, pageInfo: { type: 'PageInfo!' } },
  PublicationEdge: { node: { type: 'Publication!' }, cursor: { type: 'String!' } },
  Publication: {
    id: { type: 'ID!' },
    title: { type: 'String!' },
    displayTitle: { type: 'String' },
    url: { type: 'String' },
    isTeam: { type: 'Boolean!' },
    posts: { type: 'PostConnection!', args: { first: 'Int!', after: 'String' } },
  },
  PostConnection: { edges: { type: '[PostEdge!]!' }, pageInfo: { type: 'PageInfo!' }, totalDocuments: { type: 'Int' } },
  PostEdge: { node: { type: 'Post!' }, cursor: { type: 'String!' } },
  PageInfo: { endCursor: { type: 'String' }, hasNextPage: { type: 'Boolean!' } },
  Post: {
    id: { type: 'ID!' },
    title: { type: 'String!' },
    subtitle: { type: 'String' },
    slug: { type: 'String!' },
    url: { type: 'String!' },
    brief: { type: 'String!' },
    content: { type: 'Content!' },
    coverImage: { type: 'CoverImage' },
    tags: { type: '[Tag!]' },
    reactionCount: { type: 'Int!' },
    responseCount: { type: 'Int!' },
    replyCount: { type: 'Int!' },
    views: { type: 'Int' },
    publishedAt: { type: 'DateTime!' },
    canonicalUrl: { type: 'String' },
    publication: { type: 'Publication' },
  },
  Content: { markdown: { type: 'String!' }, html: { type: 'String!' }, text: { type: 'String!' } },
  CoverImage: { url: { type: 'String' } },
  Tag: { id: { type: 'ID!' }, name: { type: 'String!' }, slug: { type: 'String!' }, postsCount: { type: 'Int!' } },
  PublishPostPayload: { post: { type: 'Post' } },
};
const INPUTS: Record<string, Record<string, string>> = {
  PublishPostInput: {
    title: 'String!',
    subtitle: 'String',
    publicationId: 'ObjectId!',
    contentMarkdown: 'String!',
    publishedAt: 'DateTime',
    coverImageOptions: 'CoverImageOptionsInput',
    slug: 'String',
    originalArticleURL: 'String',
    tags: '[PublishPostTagInput!]',
    disableComments: 'Boolean',
    publishAs: 'ObjectId',
    seriesId: 'ObjectId',
    coAuthors: '[ObjectId!]',
  },
  CoverImageOptionsInput: { coverImageURL: 'String', isCoverAttributionHidden: 'Boolean', coverImageAttribution: 'String', coverImagePhotographer: 'String', stickCoverToBottom: 'Boolean' },
  PublishPostTagInput: { id: 'ObjectId', slug: 'String', name: 'String' },
};
const named = (t: string) => t.replace(/[[\]!]/g, '');

export class GqlRequestError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
class GqlFieldError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Checks a variable's value against its declared type, as graphql-js coerces variables. */
function coerce(value: unknown, type: string, at: string): void {
  const required = type.endsWith('!');
  const inner = required ? type.slice(0, -1) : type;
  if (value === undefined || value === null) {
    if (required) throw new GqlRequestError(`${at} of required type "${type}" was not provided.`, 'BAD_USER_INPUT');
    return;
  }
  if (inner.startsWith('[')) {
    const item = inner.slice(1, -1);
    for (const [i, v] of (Array.isArray(value) ? value : [value]).entries()) coerce(v, item, `${at}[${i}]`);
    return;
  }
  const fields = INPUTS[inner];
  if (fields) {
    if (typeof value !== 'object' || Array.isArray(value)) throw new GqlRequestError(`${at} got invalid value ${JSON.stringify(value)}; Expected type "${inner}" to be an object.`, 'BAD_USER_INPUT');
    const v = value as Record<string, unknown>;
    for (const k of Object.keys(v)) if (!(k in fields)) throw new GqlRequestError(`${at} got invalid value; Field "${k}" is not defined by type "${inner}".`, 'BAD_USER_INPUT');
    for (const [k, t] of Object.entries(fields)) {
      if (t.endsWith('!') && (v[k] === undefined || v[k] === null)) throw new GqlRequestError(`${at} got invalid value; Field "${k}" of required type "${t}" was not provided.`, 'BAD_USER_INPUT');
      coerce(v[k], t, `${at}.${k}`);
    }
    return;
  }
  const ok =
    inner === 'Int' ? Number.isInteger(value) : inner === 'Boolean' ? typeof value === 'boolean' : inner === 'ObjectId' ? typeof value === 'string' && /^[0-9a-f]{24}$/i.test(value) : typeof value === 'string';
  if (!ok) throw new GqlRequestError(`${at} got invalid value ${JSON.stringify(value)}; Expected type "${inner}".`, 'BAD_USER_INPUT');
}

function validateSelections(fields: Field[], typeName: string, op: Operation, path: string) {
  const defs = OBJECTS[typeName]!;
  for (const f of fields) {
    if (f.name === '__typename') continue;
    const def = defs[f.name];
    if (!def) throw new GqlRequestError(`Cannot query field "${f.name}" on type "${typeName}".`, 'GRAPHQL_VALIDATION_FAILED');
    for (const a of Object.keys(f.args)) if (!def.args || !(a in def.args)) throw new GqlRequestError(`Unknown argument "${a}" on field "${typeName}.${f.name}".`, 'GRAPHQL_VALIDATION_FAILED');
    for (const [a, t] of Object.entries(def.args ?? {})) {
      if (t.endsWith('!') && !(a in f.args)) throw new GqlRequestError(`Field "${f.name}" argument "${a}" of type "${t}" is required, but it was not provided.`, 'GRAPHQL_VALIDATION_FAILED');
    }
    const check = (v: Value) => {
      if (v.kind === 'var' && !(v.name in op.variables)) throw new GqlRequestError(`Variable "$${v.name}" is not defined${op.name ? ` by operation "${op.name}"` : ''}.`, 'GRAPHQL_VALIDATION_FAILED');
      if (v.kind === 'list') v.items.forEach(check);
      if (v.kind === 'obj') Object.values(v.fields).forEach(check);
    };
    Object.values(f.args).forEach(check);
    const target = named(def.type);
    if (OBJECTS[target]) {
      if (!f.selections) throw new GqlRequestError(`Field "${f.name}" of type "${def.type}" must have a selection of subfields. Did you mean "${f.name} { ... }"?`, 'GRAPHQL_VALIDATION_FAILED');
      validateSelections(f.selections, target, op, `${path}.${f.name}`);
    } else if (f.selections) {
      throw new GqlRequestError(`Field "${f.name}" must not have a selection since type "${def.type}" has no subfields.`, 'GRAPHQL_VALIDATION_FAILED');
    }
  }
}

function resolveValue(v: Value, vars: Record<string, unknown>): unknown {
  if (v.kind === 'var') return vars[v.name];
  if (v.kind === 'lit') return v.value;
  if (v.kind === 'list') return v.items.map((i) => resolveValue(i, vars));
  return Object.fromEntries(Object.entries(v.fields).map(([k, x]) => [k, resolveValue(x, vars)]));
}

/** A resolved object: plain values, or functions of the field's arguments. */
type Resolved = Record<string, unknown>;
interface GqlErrorOut {
  message: string;
  path: (string | number)[];
  extensions: { code: string };
}

function project(value: unknown, typeName: string, fields: Field[], vars: Record<string, unknown>, path: (string | number)[], errors: GqlErrorOut[]): unknown {
  if (value === null || value === undefined) return null;
  const obj = value as Resolved;
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.name === '__typename') {
      out[f.alias] = typeName;
      continue;
    }
    const def = OBJECTS[typeName]![f.name]!;
    const args = Object.fromEntries(Object.entries(f.args).map(([k, v]) => [k, resolveValue(v, vars)]));
    let raw: unknown;
    try {
      raw = typeof obj[f.name] === 'function' ? (obj[f.name] as (a: Record<string, unknown>) => unknown)(args) : obj[f.name];
    } catch (e) {
      if (!(e instanceof GqlFieldError)) throw e;
      errors.push({ message: e.message, path: [...path, f.alias], extensions: { code: e.code } });
      raw = null;
    }
    const target = named(def.type);
    if (!OBJECTS[target]) out[f.alias] = raw ?? null;
    else if (def.type.startsWith('[')) out[f.alias] = Array.isArray(raw) ? raw.map((r, i) => project(r, target, f.selections!, vars, [...path, f.alias, i], errors)) : null;
    else out[f.alias] = project(raw, target, f.selections!, vars, [...path, f.alias], errors);
  }
  return out;
}

// ---------------------------------------------------------------- Hashnode's data

export interface HashnodeUserRecord {
  id: string;
  username: string;
  name: string;
  token: string;
  profilePicture?: string;
}
export interface HashnodePublicationRecord {
  id: string;
  title: string;
  url: string;
  members: string[];
  /** Hashnode lets the API write only into publications with an active Pro plan (default: has one) */
  pro?: boolean;
}
export interface HashnodeTagRecord {
  id: string;
  name: string;
  slug: string;
}
export interface HashnodeCoverRecord {
  url: string;
  sha256: string;
  size: number;
  contentType: string;
}
export interface HashnodePostRecord {
  id: string;
  authorId: string;
  publicationId: string;
  title: string;
  subtitle: string | null;
  slug: string;
  url: string;
  markdown: string;
  tagIds: string[];
  canonicalUrl: string | null;
  cover: HashnodeCoverRecord | null;
  publishedAt: string;
  views: number;
  reactionCount: number;
  responseCount: number;
}

export interface HashnodeSimulatorOptions {
  /** public origin of pulled media → where it is really served */
  mediaOrigins?: Record<string, string>;
  /** mutations per token per minute before HTTP 429 (Hashnode: 500) */
  mutationsPerMinute?: number;
}

export interface HashnodeSimulator extends Simulator {
  users: Map<string, HashnodeUserRecord>;
  publications: HashnodePublicationRecord[];
  tags: HashnodeTagRecord[];
  posts: HashnodePostRecord[];
  addUser(u: HashnodeUserRecord): void;
  addPublication(p: HashnodePublicationRecord): void;
  addTag(t: HashnodeTagRecord): void;
  addPost(p: Partial<HashnodePostRecord> & { authorId: string; publicationId: string; title: string }): HashnodePostRecord;
  setFigures(id: string, f: { views?: number; reactionCount?: number; responseCount?: number }): void;
  revokeToken(token: string): void;
  /** operations in the order they arrived: name and variables */
  operations: { name: string | null; type: string; root: string[]; variables: Record<string, unknown> }[];
  lookup(id: string): { text: string; mediaSha256: string[] } | undefined;
  injectKind(kind: InjectedKind): void;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
export const objectId = () => randomBytes(12).toString('hex');

function pictureType(b: Buffer): string | undefined {
  if (b.subarray(0, 8).equals(Buffer.from('89504e470d0a1a0a', 'hex'))) return 'image/png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (['GIF87a', 'GIF89a'].includes(b.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return undefined;
}

export async function startHashnodeSimulator(opts: HashnodeSimulatorOptions = {}): Promise<HashnodeSimulator> {
  const mode = currentSimulatorMode();
  const users = new Map<string, HashnodeUserRecord>();
  const revoked = new Set<string>();
  const publications: HashnodePublicationRecord[] = [];
  const tags: HashnodeTagRecord[] = [];
  const posts: HashnodePostRecord[] = [];
  const operations: HashnodeSimulator['operations'] = [];
  const injected: InjectedKind[] = [];
  const mutationTimes = new Map<string, number[]>();
  const perMinute = opts.mutationsPerMinute ?? 500;

  async function pull(url: string): Promise<HashnodeCoverRecord | string> {
    if (!URL.canParse(url)) return 'Invalid cover image URL';
    try {
      const res = await mediaFetch(mode, opts.mediaOrigins, url, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) return `Could not fetch the cover image from ${url} (HTTP ${res.status})`;
      const bytes = Buffer.from(await res.arrayBuffer());
      const type = pictureType(bytes);
      if (!type) return `The cover image at ${url} is not an image`;
      return { url, sha256: sha256(bytes), size: bytes.length, contentType: type };
    } catch {
      return `Could not fetch the cover image from ${url}`;
    }
  }

  const tagView = (t: HashnodeTagRecord) => ({ ...t, postsCount: posts.filter((p) => p.tagIds.includes(t.id)).length });
  function postView(p: HashnodePostRecord): Resolved {
    return {
      id: p.id,
      title: p.title,
      subtitle: p.subtitle,
      slug: p.slug,
      url: p.url,
      brief: p.markdown.replace(/\s+/g, ' ').slice(0, 150),
      content: { markdown: p.markdown, html: `<p>${p.markdown}</p>`, text: p.markdown },
      coverImage: p.cover ? { url: `https://cdn.hashnode.com/res/hashnode/image/upload/${p.cover.sha256.slice(0, 16)}.png` } : null,
      tags: p.tagIds.map((id) => tags.find((t) => t.id === id)).filter(Boolean).map((t) => tagView(t!)),
      reactionCount: p.reactionCount,
      responseCount: p.responseCount,
      replyCount: 0,
      views: p.views,
      publishedAt: p.publishedAt,
      canonicalUrl: p.canonicalUrl,
      publication: () => pubView(publications.find((x) => x.id === p.publicationId)!),
    };
  }
  function connection<T>(items: T[], args: Record<string, unknown>, view: (t: T) => Resolved) {
    const first = Number(args.first);
    if (!Number.isInteger(first) || first < 1) throw new GqlFieldError('first must be a positive integer', 'BAD_USER_INPUT');
    const size = Math.min(first, 50);
    const start = typeof args.after === 'string' && args.after !== '' ? Number(Buffer.from(args.after, 'base64').toString()) : 0;
    const page = items.slice(start, start + size);
    const end = start + page.length;
    return {
      edges: page.map((n, i) => ({ node: view(n), cursor: Buffer.from(String(start + i + 1)).toString('base64') })),
      pageInfo: { hasNextPage: end < items.length, endCursor: page.length ? Buffer.from(String(end)).toString('base64') : null },
      totalDocuments: items.length,
    };
  }
  function pubView(p: HashnodePublicationRecord): Resolved {
    return {
      id: p.id,
      title: p.title,
      displayTitle: p.title,
      url: p.url,
      isTeam: p.members.length > 1,
      posts: (args: Record<string, unknown>) =>
        connection(
          posts.filter((x) => x.publicationId === p.id).sort((a, b) => Date.parse(b.publishedAt) - Date.parse(a.publishedAt) || (a.id < b.id ? 1 : -1)),
          args,
          postView,
        ),
    };
  }

  async function publishPost(user: HashnodeUserRecord | undefined, input: Record<string, unknown>): Promise<Resolved> {
    if (!user) throw new GqlFieldError('You must be logged in to publish a post.', 'UNAUTHENTICATED');
    const pub = publications.find((p) => p.id === input.publicationId);
    if (!pub) throw new GqlFieldError('Publication not found', 'NOT_FOUND');
    if (!pub.members.includes(user.id)) throw new GqlFieldError('You are not allowed to publish in this publication.', 'FORBIDDEN');
    if (pub.pro === false) throw new GqlFieldError('Publication does not have an active Pro plan. Upgrade in your dashboard to access this via the API.', 'FORBIDDEN');
    const title = String(input.title).trim();
    if (title.length < 6) throw new GqlFieldError('Title must be at least 6 characters long', 'BAD_USER_INPUT');
    if (title.length > 250) throw new GqlFieldError('Title must be at most 250 characters long', 'BAD_USER_INPUT');
    const markdown = String(input.contentMarkdown);
    if (markdown.trim() === '') throw new GqlFieldError('Content must not be empty', 'BAD_USER_INPUT');
    const tagInputs = (input.tags as { id?: string; slug?: string; name?: string }[] | undefined) ?? [];
    if (tagInputs.length > 5) throw new GqlFieldError('A post can have at most 5 tags', 'BAD_USER_INPUT');
    const tagIds: string[] = [];
    for (const t of tagInputs) {
      const found = t.id ? tags.find((x) => x.id === t.id) : t.slug ? tags.find((x) => x.slug === t.slug) : undefined;
      if (!found) throw new GqlFieldError(`Invalid tag: ${t.id ?? t.slug ?? JSON.stringify(t)}`, 'BAD_USER_INPUT');
      tagIds.push(found.id);
    }
    const canonical = typeof input.originalArticleURL === 'string' && input.originalArticleURL !== '' ? input.originalArticleURL : null;
    if (canonical !== null && !/^https?:\/\/\S+$/.test(canonical)) throw new GqlFieldError('originalArticleURL must be a valid URL', 'BAD_USER_INPUT');
    const subtitle = typeof input.subtitle === 'string' && input.subtitle !== '' ? input.subtitle : null;
    if (subtitle !== null && subtitle.length > 250) throw new GqlFieldError('Subtitle must be at most 250 characters long', 'BAD_USER_INPUT');
    let cover: HashnodeCoverRecord | null = null;
    const coverUrl = (input.coverImageOptions as { coverImageURL?: string } | undefined)?.coverImageURL;
    if (coverUrl) {
      const r = await pull(coverUrl);
      if (typeof r === 'string') throw new GqlFieldError(r, 'BAD_USER_INPUT');
      cover = r;
    }
    const record = addPost({ authorId: user.id, publicationId: pub.id, title, subtitle, markdown, tagIds, canonicalUrl: canonical, cover });
    return { post: postView(record) };
  }

  function addPost(p: Partial<HashnodePostRecord> & { authorId: string; publicationId: string; title: string }): HashnodePostRecord {
    const pub = publications.find((x) => x.id === p.publicationId)!;
    const slug = p.slug ?? (p.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'post');
    const taken = posts.filter((x) => x.publicationId === pub.id && x.slug.startsWith(slug)).length;
    const finalSlug = taken ? `${slug}-${taken}` : slug;
    const record: HashnodePostRecord = {
      id: objectId(),
      subtitle: null,
      markdown: '',
      tagIds: [],
      canonicalUrl: null,
      cover: null,
      publishedAt: new Date().toISOString(),
      views: 0,
      reactionCount: 0,
      responseCount: 0,
      ...p,
      slug: finalSlug,
      url: `${pub.url}/${finalSlug}`,
    };
    posts.push(record);
    return record;
  }

  const gqlError = (reply: FastifyReply, status: number, message: string, code: string) => reply.status(status).send({ errors: [{ message, extensions: { code } }] });

  const sim = await startSimulator((app) => {
    app.post('/', async (req: FastifyRequest<{ Body: { query?: unknown; variables?: unknown; operationName?: unknown } | undefined }>, reply) => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return gqlError(reply, 400, 'POST body must be JSON (content-type: application/json).', 'BAD_REQUEST');
      const body = req.body ?? {};
      if (typeof body.query !== 'string' || body.query.trim() === '') return gqlError(reply, 400, 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.', 'BAD_REQUEST');
      const vars = (body.variables ?? {}) as Record<string, unknown>;
      let op: Operation;
      try {
        op = parseOperation(body.query, typeof body.operationName === 'string' ? body.operationName : null);
        validateSelections(op.selections, op.type === 'mutation' ? 'Mutation' : 'Query', op, '');
        for (const [name, type] of Object.entries(op.variables)) coerce(vars[name], type, `Variable "$${name}"`);
      } catch (e) {
        if (e instanceof GqlSyntaxError) return gqlError(reply, 400, e.message, 'GRAPHQL_PARSE_FAILED');
        if (e instanceof GqlRequestError) return gqlError(reply, 400, e.message, e.code);
        throw e;
      }
      operations.push({ name: op.name, type: op.type, root: op.selections.map((s) => s.name), variables: vars });
      const auth = String(req.headers.authorization ?? '').replace(/^bearer\s+/i, '');
      const user = auth && !revoked.has(auth) ? users.get(auth) : undefined;

      if (op.type === 'mutation') {
        const kind = injected.shift();
        if (kind) return injectedAnswer(reply, kind);
        const key = auth || req.ip;
        const now = Date.now();
        const recent = (mutationTimes.get(key) ?? []).filter((t) => t > now - 60_000);
        mutationTimes.set(key, recent);
        if (recent.length >= perMinute) {
          const wait = Math.max(1, Math.ceil((recent[0]! + 60_000 - now) / 1000));
          return reply.status(429).header('retry-after', String(wait)).send({ errors: [{ message: 'Too many requests, please try again later.', extensions: { code: 'TOO_MANY_REQUESTS' } }] });
        }
        recent.push(now);
      }

      const errors: GqlErrorOut[] = [];
      const root: Resolved = {
        me: () => {
          if (!user) throw new GqlFieldError('You must be logged in to view this information.', 'UNAUTHENTICATED');
          return {
            id: user.id,
            username: user.username,
            name: user.name,
            email: `${user.username}@example.com`,
            profilePicture: user.profilePicture ?? null,
            publications: (args: Record<string, unknown>) => connection(publications.filter((p) => p.members.includes(user.id)), args, pubView),
          };
        },
        tag: (a: Record<string, unknown>) => {
          const t = tags.find((x) => x.slug === a.slug);
          return t ? tagView(t) : null;
        },
        publication: (a: Record<string, unknown>) => {
          const p = publications.find((x) => (a.id !== undefined && x.id === a.id) || (a.host !== undefined && new URL(x.url).host === a.host));
          return p ? pubView(p) : null;
        },
        post: (a: Record<string, unknown>) => {
          const p = posts.find((x) => x.id === a.id);
          return p ? postView(p) : null;
        },
      };
      if (op.type === 'mutation') {
        const data: Record<string, unknown> = {};
        for (const f of op.selections) {
          const args = Object.fromEntries(Object.entries(f.args).map(([k, v]) => [k, resolveValue(v, vars)]));
          try {
            const payload = await publishPost(user, args.input as Record<string, unknown>);
            data[f.alias] = project(payload, 'PublishPostPayload', f.selections!, vars, [f.alias], errors);
          } catch (e) {
            if (!(e instanceof GqlFieldError)) throw e;
            // PublishPostPayload! is non-null: the error nulls the whole `data`.
            return reply.send({ errors: [{ message: e.message, path: [f.alias], extensions: { code: e.code } }], data: null });
          }
        }
        return reply.send(errors.length ? { errors, data } : { data });
      }
      const data = project(root, 'Query', op.selections, vars, [], errors);
      return reply.send(errors.length ? { errors, data } : { data });
    });
  });

  function injectedAnswer(reply: FastifyReply, kind: InjectedKind) {
    switch (kind) {
      case 'auth_expired':
      case 'revoked':
        return reply.send({ errors: [{ message: 'You must be logged in to publish a post.', path: ['publishPost'], extensions: { code: 'UNAUTHENTICATED' } }], data: null });
      case 'rate_limited':
        return reply.status(429).header('retry-after', '42').send({ errors: [{ message: 'Too many requests, please try again later.', extensions: { code: 'TOO_MANY_REQUESTS' } }] });
      case 'server_error':
        return reply.status(502).type('text/html').send('<html><body><h1>502 Bad Gateway</h1></body></html>');
      case 'rejected':
        return reply.send({ errors: [{ message: 'Invalid tag: 000000000000000000000000', path: ['publishPost'], extensions: { code: 'BAD_USER_INPUT' } }], data: null });
      case 'error_in_200':
        return reply.send({ errors: [{ message: 'Content must not be empty', path: ['publishPost'], extensions: { code: 'BAD_USER_INPUT' } }], data: null });
    }
  }

  return Object.assign(sim, {
    users,
    publications,
    tags,
    posts,
    operations,
    addUser: (u: HashnodeUserRecord) => void users.set(u.token, u),
    addPublication: (p: HashnodePublicationRecord) => void publications.push(p),
    addTag: (t: HashnodeTagRecord) => void tags.push(t),
    addPost,
    setFigures(id: string, f: { views?: number; reactionCount?: number; responseCount?: number }) {
      const p = posts.find((x) => x.id === id);
      if (!p) throw new Error(`no post ${id}`);
      Object.assign(p, Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined)));
    },
    revokeToken: (token: string) => void revoked.add(token),
    lookup(id: string) {
      const p = posts.find((x) => x.id === id);
      return p ? { text: p.markdown, mediaSha256: p.cover ? [p.cover.sha256] : [] } : undefined;
    },
    /** The next mutation gets Hashnode's answer for `kind` (queries before it, like the tag lookup, are answered normally). */
    injectKind: (kind: InjectedKind) => void injected.push(kind),
  });
}
