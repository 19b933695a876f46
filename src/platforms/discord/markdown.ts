import { htmlToMarkup, type MarkupDialect } from '../common/html-markup.js';

/**
 * Stored post HTML → Discord Markdown: `**bold**`, `*italic*`, `__underline__`, `~~strike~~`,
 * `` `code` ``, fenced blocks, `> ` quotes, `#` headings (h1–h3; deeper ones become bold), lists
 * and masked links `[text](url)`. Literal `*` or `_` typed by the user are left alone: the editor
 * is a Markdown editor, so they are taken to be Markdown.
 */
const DISCORD: MarkupDialect = {
  inline: { strong: '**', b: '**', em: '*', i: '*', u: '__', s: '~~', del: '~~', strike: '~~', code: '`' },
  escapeText: (t) => t,
  bullet: '- ',
  indent: '  ',
  headingPrefix: (level) => (level <= 3 ? `${'#'.repeat(level)} ` : undefined),
  headingMark: '**',
  bareLink: (href) => href.replace(/\s/g, '%20').replace(/\)/g, '%29'),
  // Brackets inside the label would end it early.
  link: (href, label) => `[${label.replace(/[[\]]/g, (c) => `\\${c}`)}](${href.replace(/\s/g, '%20').replace(/\)/g, '%29')})`,
};

export function htmlToDiscordMarkdown(html: string): string {
  return htmlToMarkup(html, DISCORD);
}
