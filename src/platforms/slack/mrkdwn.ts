import { htmlToMarkup, type MarkupDialect } from '../common/html-markup.js';

/**
 * Stored post HTML → Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`, `` `code` ``, fenced blocks,
 * `>` quotes, `<url|text>` links. Slack has no headings or underline (headings become bold lines,
 * underline is dropped). In the text, `&`, `<` and `>` must be sent as `&amp;`, `&lt;`, `&gt;`
 * (and only those): Slack reads a bare `<` as the start of a link or mention.
 */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const slackUrl = (href: string) => escapeSlack(href.replace(/\|/g, '%7C').replace(/\s/g, '%20'));

const SLACK: MarkupDialect = {
  inline: { strong: '*', b: '*', em: '_', i: '_', s: '~', del: '~', strike: '~', code: '`' },
  escapeText: escapeSlack,
  bullet: '• ',
  indent: '    ',
  headingPrefix: () => undefined,
  headingMark: '*',
  bareLink: (href) => `<${slackUrl(href)}>`,
  link: (href, label) => `<${slackUrl(href)}|${label}>`,
};

export function htmlToMrkdwn(html: string): string {
  return htmlToMarkup(html, SLACK);
}
