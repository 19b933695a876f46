import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/** Deepest nesting of arrays and objects a JSON body may have. The API's own bodies need < 10. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * The path to the first container nested deeper than `max` levels in the JSON text, or undefined.
 * A single linear pass over the text, before anything parses it: no recursion, no allocation per
 * level beyond the path itself, so a body of millions of `[` costs only its length to refuse.
 */
export function findTooDeep(text: string, max: number): (string | number)[] | undefined {
  // One entry per open container: the index (array) or key (object) currently being read in it.
  const path: (string | number)[] = [];
  let keyStart = -1;
  let keyEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      keyStart = i;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === BACKSLASH) i++;
        else if (d === QUOTE) break;
      }
      keyEnd = i + 1;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (path.length >= max) return path;
      path.push(c === OPEN_ARRAY ? 0 : '');
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      path.pop();
    } else if (c === COMMA) {
      const top = path.length - 1;
      if (typeof path[top] === 'number') path[top] = path[top] + 1;
    } else if (c === COLON && path.length > 0 && keyStart >= 0) {
      try {
        path[path.length - 1] = JSON.parse(text.slice(keyStart, keyEnd)) as string;
      } catch {
        // malformed: the parser that runs next names it
      }
    }
  }
  return undefined;
}

/** `posts.0.settings.a.a.a…` for messages: long paths are cut after a few segments. */
function shortPath(path: (string | number)[]): string {
  const shown = path.slice(0, 8).join('.');
  return path.length > 8 ? `${shown}.…` : shown || 'body';
}

/**
 * The one JSON body parser: Fastify's own (prototype-poisoning guard) behind a nesting bound, so no
 * recursive walk further in (validation, NUL checks, serialisation) can ever overflow the stack.
 * Clients (the Postiz CLI among them) send `Content-Type: application/json` with an empty body on
 * DELETE and GET: an empty JSON body is no body, not an error.
 */
export function installJsonParser(app: FastifyInstance, opts: { maxDepth?: number } = {}) {
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body.toString();
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    const deep = findTooDeep(text, maxDepth);
    if (deep) {
      const path = deep.join('.') || 'body';
      done(
        new AppError('BODY_TOO_DEEP', `${shortPath(deep)}: the JSON body is nested more than ${maxDepth} levels deep`, {
          fields: [{ path, message: `Nested more than ${maxDepth} levels deep` }],
        }),
        undefined,
      );
      return;
    }
    void parseJson(req, text, done);
  });
}
