/**
 * LinkedIn's "little text" format of post commentary: the characters below are reserved for
 * templates (mentions `@[Name](urn:li:organization:1)`, hashtags `{hashtag|\#|tag}`…). Left
 * unescaped, LinkedIn misreads them and typically cuts the text at that point; escaped with a
 * backslash they show as themselves.
 */
const RESERVED = /[\\|{}@[\]()<>#*_~]/g;
const ESCAPED = /\\([\\|{}@[\]()<>#*_~])/g;

/** Plain text → little text that LinkedIn shows exactly as given. */
export function escapeLittleText(text: string): string {
  return text.replace(RESERVED, '\\$&');
}

/** Little text (as LinkedIn returns commentary) → the plain text it shows. Templates are kept as written. */
export function unescapeLittleText(text: string): string {
  return text.replace(ESCAPED, '$1');
}
