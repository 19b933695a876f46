import type { ReactNode } from 'react';
import type { Integration } from '../../api/queries.js';
import { platformName } from '../../lib/platforms.js';
import { ChannelAvatar } from '../channels/PlatformMark.js';
import { lengthOnPlatform, platformText } from './counting.js';
import { MediaThumb } from './MediaPicker.js';
import type { ComposeItem, Rules } from './model.js';

/** The channel's avatar in the composer: the shared one (picture or initials, with its platform's mark). */
export function Avatar({ channel, size = 'md' }: { channel: Pick<Integration, 'name' | 'picture' | 'identifier'> & { sandbox?: boolean }; size?: 'sm' | 'md' }) {
  return <ChannelAvatar picture={channel.picture} identifier={channel.identifier} name={channel.name} size={size === 'sm' ? 26 : 38} sandbox={channel.sandbox} />;
}

const TOKEN = /https?:\/\/[^\s<>"]+|(?<![\p{L}\p{N}_])[#@][\p{L}\p{N}_]+(?:[.@-][\p{L}\p{N}_]+)*/gu;

/** Text as the platform shows it: line breaks kept, links, mentions and tags marked. */
function RichText({ text }: { text: string }) {
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    const at = m.index;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(
      <span key={at} className={m[0].startsWith('http') ? 'compose-pv-link' : 'compose-pv-tag'}>
        {m[0]}
      </span>,
    );
    last = at + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return <>{parts}</>;
}

function ItemBody({ item, rules, shortLinkLength }: { item: ComposeItem; rules: Rules | undefined; shortLinkLength?: number | undefined }) {
  const text = platformText(item.text);
  const n = rules ? lengthOnPlatform(item.text, rules.counting, shortLinkLength) : undefined;
  const over = rules !== undefined && n !== undefined && n > rules.maxLength;
  return (
    <>
      {text ? (
        <p className="compose-pv-text">
          <RichText text={text} />
        </p>
      ) : (
        <p className="compose-pv-text compose-pv-empty">{item.media.length > 0 ? '' : 'Nothing written yet'}</p>
      )}
      {item.media.length > 0 ? (
        <div className={`compose-pv-media compose-pv-media-${Math.min(item.media.length, 4)}`}>
          {item.media.map((m, k) => (
            <MediaThumb key={`${m.id}-${k}`} item={m} className="compose-pv-thumb" />
          ))}
        </div>
      ) : null}
      {rules && n !== undefined ? (
        <p className={`compose-pv-count${over ? ' over' : ''}`}>
          {n} / {rules.maxLength}
        </p>
      ) : null}
    </>
  );
}

/**
 * How the post will look on one channel: its name and picture, the text it gets (its own or the
 * shared one, as the platform receives it), the media, and the thread items after it.
 */
export function PreviewCard({
  channel,
  rules,
  items,
  dropped,
  when,
  shortLinkLength,
}: {
  channel: Integration;
  rules: Rules | undefined;
  items: ComposeItem[];
  dropped: number;
  when: { label: string; title: string } | undefined;
  /** with "Shorten links" on: the length each URL counts as */
  shortLinkLength?: number | undefined;
}) {
  const kind = rules?.thread.kind === 'comment' ? 'Comment' : 'Reply';
  return (
    <article className="compose-pv" data-platform={channel.identifier} aria-label={`Preview on ${channel.name}`}>
      <header className="compose-pv-head">
        <Avatar channel={channel} />
        <div className="compose-pv-who">
          <span className="compose-pv-name">{channel.name}</span>
          <span className="compose-pv-sub">
            {channel.profile ? `@${channel.profile.replace(/^@/, '')} · ` : ''}
            {platformName(channel.identifier)}
          </span>
        </div>
        {when ? (
          <time className="compose-pv-when" title={when.title}>
            {when.label}
          </time>
        ) : null}
      </header>
      {items[0] ? <ItemBody item={items[0]} rules={rules} shortLinkLength={shortLinkLength} /> : null}
      {items.slice(1).map((item, i) => (
        <div key={item.key} className="compose-pv-reply">
          <p className="compose-pv-reply-head">
            {kind} {i + 1} · {item.delay > 0 ? `${item.delay} min later` : 'right after'}
          </p>
          <ItemBody item={item} rules={rules} shortLinkLength={shortLinkLength} />
        </div>
      ))}
      {dropped > 0 ? (
        <p className="hint compose-pv-note">
          {platformName(channel.identifier)} has no replies or comments: {dropped} thread item{dropped > 1 ? 's are' : ' is'} not sent here.
        </p>
      ) : null}
    </article>
  );
}
