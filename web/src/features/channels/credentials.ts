import type { ErrorSchema, RJSFSchema, UiSchema } from '@rjsf/utils';

/**
 * The credential form of a platform, from the JSON Schema `GET /social/{identifier}` answers
 * (`credentials`): labels people can read, secrets in password inputs, and the API's field
 * errors placed on the fields they name.
 */

const WORDS: Record<string, string> = { id: 'ID', url: 'URL', api: 'API', uuid: 'UUID', pds: 'PDS' };

/** `botToken` → "Bot token", `chatId` → "Chat ID", `siteUrl` → "Site URL". */
export function humanize(key: string): string {
  const words = key
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase());
  const [first = '', ...rest] = words;
  return [first.charAt(0).toUpperCase() + first.slice(1), ...rest].join(' ');
}

const SECRET = /(password|token|secret|key)$/i;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema for the form (without its `$schema` dialect line) and the look of each field. */
export function credentialsForm(credentials: Record<string, unknown>): { schema: RJSFSchema; uiSchema: UiSchema } {
  const { $schema: _dialect, ...schema } = credentials;
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const uiSchema: UiSchema = { 'ui:submitButtonOptions': { norender: true } };
  for (const [key, prop] of Object.entries(properties)) {
    const secret = SECRET.test(key);
    const title = isRecord(prop) && typeof prop.title === 'string' ? prop.title : humanize(key);
    const description = isRecord(prop) && typeof prop.description === 'string' ? prop.description : '';
    // the schema's first example shows what to type (a handle's shape, an address)
    const example = isRecord(prop) && Array.isArray(prop.examples) && typeof prop.examples[0] === 'string' ? prop.examples[0] : '';
    uiSchema[key] = {
      'ui:title': title,
      ...(example ? { 'ui:placeholder': example } : {}),
      ...(description ? { 'ui:description': description.charAt(0).toUpperCase() + description.slice(1) } : {}),
      ...(secret ? { 'ui:widget': 'password', 'ui:autocomplete': 'new-password' } : { 'ui:autocomplete': 'off' }),
    };
  }
  return { schema: schema, uiSchema };
}

/**
 * The API's `fields` (`botToken`, `relays.1`) as rjsf's error tree, for the fields the form
 * has; the rest (e.g. `body`) is answered separately so it can be shown above the form.
 */
export function fieldErrors(fields: readonly { path: string; message: string }[] | undefined, schema: RJSFSchema): { errorSchema: ErrorSchema; unplaced: string[] } {
  const known = new Set(Object.keys(isRecord(schema.properties) ? schema.properties : {}));
  const errorSchema: Record<string, unknown> = {};
  const unplaced: string[] = [];
  for (const f of fields ?? []) {
    const parts = f.path.split('.').filter(Boolean);
    if (!parts[0] || !known.has(parts[0])) {
      unplaced.push(f.path && f.path !== 'body' ? `${f.path}: ${f.message}` : f.message);
      continue;
    }
    let node = errorSchema;
    for (const part of parts) {
      node[part] = isRecord(node[part]) ? node[part] : {};
      node = node[part] as Record<string, unknown>;
    }
    node.__errors = [...(Array.isArray(node.__errors) ? (node.__errors as string[]) : []), f.message];
  }
  return { errorSchema: errorSchema as ErrorSchema, unplaced };
}
