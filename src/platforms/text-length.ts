import twitterText from 'twitter-text';
import type { TextCounting } from './platform.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The length of `text` as the platform counts it (compared with `metadata.text.maxLength`). */
export function countText(text: string, counting: TextCounting): number {
  switch (counting) {
    case 'characters':
      return text.length;
    case 'graphemes': {
      let n = 0;
      for (const _ of segmenter.segment(text)) n++;
      return n;
    }
    case 'twitter-weighted':
      return twitterText.parseTweet(text).weightedLength;
    case 'bytes':
      return Buffer.byteLength(text, 'utf8');
    case 'mastodon':
      return countText(
        text.replace(/https?:\/\/[^\s<>"]+/g, 'x'.repeat(23)).replace(/(^|[^\w@])(@[\w.]+)@[\w.-]+\.\w+/g, '$1$2'),
        'graphemes',
      );
  }
}
