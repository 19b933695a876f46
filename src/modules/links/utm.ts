/**
 * UTM tagging (issue 32): an organisation's template is a query string whose values may hold
 * placeholders, e.g. `utm_source={platform}&utm_medium=social&utm_campaign={group}`. It is applied
 * to each link's target when the link is made; a parameter the URL carries already is kept as written.
 */
export const UTM_PLACEHOLDERS = ['platform', 'channel', 'group', 'post', 'date'] as const;
export type UtmVars = Record<(typeof UTM_PLACEHOLDERS)[number], string>;

const PLACEHOLDER = /\{([^{}]*)\}/g;
const MAX_TEMPLATE = 1000;

/** Why `template` cannot be used (undefined: it can). */
export function checkUtmTemplate(template: string): string | undefined {
  if (template.length > MAX_TEMPLATE) return `must be at most ${MAX_TEMPLATE} characters`;
  const parts = template.replace(/^\?/, '').split('&');
  for (const part of parts) {
    const eq = part.indexOf('=');
    if (eq <= 0) return `"${part}" is not a name=value pair (write e.g. utm_source={platform}&utm_medium=social)`;
    const name = part.slice(0, eq);
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) return `"${name}" is not a parameter name (letters, digits, _ . -)`;
    for (const m of part.slice(eq + 1).matchAll(PLACEHOLDER)) {
      if (!(UTM_PLACEHOLDERS as readonly string[]).includes(m[1]!)) return `{${m[1]}} is not a placeholder; use ${UTM_PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`;
    }
    if (/[{}]/.test(part.slice(eq + 1).replace(PLACEHOLDER, ''))) return `"${part}" has an unmatched brace`;
  }
  return undefined;
}

/** `url` with the template's parameters added (placeholders filled, values encoded). */
export function applyUtm(url: string, template: string | null, vars: UtmVars): string {
  if (!template) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  for (const part of template.replace(/^\?/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq);
    if (parsed.searchParams.has(name)) continue;
    const value = part.slice(eq + 1).replace(PLACEHOLDER, (_m, key: string) => vars[key as keyof UtmVars] ?? '');
    parsed.searchParams.append(name, value);
  }
  return parsed.toString();
}
