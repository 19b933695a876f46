/**
 * Text PostgreSQL cannot store, found before it gets near SQL: the NUL character (text and jsonb
 * refuse U+0000) and lone UTF-16 surrogates (not Unicode at all; the driver would silently turn
 * them into U+FFFD, changing what the caller sent).
 */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` cannot be stored as it is, or undefined when it can. */
export function unstorableReason(s: string): string | undefined {
  if (s.includes('\u0000')) return 'Must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'Must be valid Unicode text (it contains a lone UTF-16 surrogate)';
  return undefined;
}

export interface UnstorableText {
  /** path segments from the root of `value` to the offending string (or key) */
  path: (string | number)[];
  message: string;
}

interface Visit {
  value: unknown;
  /** the visit of the containing array or object, and the key or index in it (paths are built only for findings) */
  parent?: Visit;
  key?: string | number;
}

function pathOf(visit: Visit, last?: string): (string | number)[] {
  const reversed: (string | number)[] = last === undefined ? [] : [last];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) reversed.push(v.key!);
  return reversed.reverse();
}

/**
 * Every string and object key in `value` that cannot be stored, up to `limit` of them. Walks with
 * an explicit stack, so no input can overflow the call stack (bodies are also depth-bounded when
 * parsed, but values reach this from other places too).
 */
export function findUnstorableText(value: unknown, limit = 20): UnstorableText[] {
  const out: UnstorableText[] = [];
  const stack: Visit[] = [{ value }];
  while (stack.length > 0 && out.length < limit) {
    const visit = stack.pop()!;
    const v = visit.value;
    if (typeof v === 'string') {
      const message = unstorableReason(v);
      if (message) out.push({ path: pathOf(visit), message });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], parent: visit, key: i });
    } else if (v !== null && typeof v === 'object') {
      const children: Visit[] = [];
      for (const [k, child] of Object.entries(v)) {
        const message = unstorableReason(k);
        if (message) out.push({ path: pathOf(visit, k), message: `Key: ${message.charAt(0).toLowerCase()}${message.slice(1)}` });
        else children.push({ value: child, parent: visit, key: k });
      }
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  return out;
}
