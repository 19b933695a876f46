import TurndownService from 'turndown';

/**
 * Stored post HTML → CommonMark, for the platforms whose body is Markdown (DEV, Hashnode, Medium's
 * markdown format, Lemmy). One converter, configured once: ATX headings, `-` bullets, fenced code,
 * `**bold**` / `_italic_`, inline links. Strikethrough (`<s>`, `<del>`, `<strike>`) becomes the
 * `~~` these renderers all take (GitHub-flavoured), underline keeps its text (Markdown has none).
 */
/** What the rules read of a node (the server build has no DOM typings). */
interface NodeLike {
  nodeName: string;
  getAttribute(name: string): string | null;
}
const nodeOf = (node: unknown) => node as NodeLike;

const turndown = new TurndownService({
  headingStyle: 'atx',
  bulletListMarker: '-',
  codeBlockStyle: 'fenced',
  emDelimiter: '_',
  strongDelimiter: '**',
  linkStyle: 'inlined',
  hr: '---',
});
turndown.addRule('strikethrough', {
  filter: (node) => ['DEL', 'S', 'STRIKE'].includes(nodeOf(node).nodeName),
  replacement: (content) => (content.trim() === '' ? content : `~~${content}~~`),
});
turndown.addRule('underline', { filter: ['u', 'ins'], replacement: (content) => content });
// Links whose address is not http(s)/mailto keep their label only (a `javascript:` href is not a link).
turndown.addRule('unsafeLinks', {
  filter: (node) => nodeOf(node).nodeName === 'A' && !/^(https?:\/\/|mailto:)/i.test((nodeOf(node).getAttribute('href') ?? '').trim()),
  replacement: (content) => content,
});
turndown.remove(['script', 'style']);

export function htmlToMarkdown(html: string): string {
  return turndown.turndown(html).replace(/\n{3,}/g, '\n\n').trim();
}
