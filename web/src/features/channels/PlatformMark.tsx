import { useState, type CSSProperties } from 'react';
import { platformName } from '../../lib/platforms.js';
import './avatar.css';

/** A platform's mark: its initial on its colour (bundled: no third-party logos are loaded). */
export function PlatformMark({ identifier, size = 32 }: { identifier: string; size?: number }) {
  const name = platformName(identifier);
  return (
    <span className={`ch-mark pf-${identifier}`} data-platform={identifier} style={{ width: size, height: size, fontSize: Math.round(size * 0.46) }} aria-hidden="true">
      {name.charAt(0).toUpperCase()}
    </span>
  );
}

/** Up to two initials of a channel name: the first letters of its first and last words ("Acme on Bluesky" → "AB"). */
export function initialsOf(name: string): string {
  const words = name.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return '?';
  const first = Array.from(words[0]!);
  const initials = words.length > 1 ? first[0]! + Array.from(words.at(-1)!)[0]! : first.slice(0, 2).join('');
  return initials.toLocaleUpperCase();
}

/** A hue (0–359) that a name always gets, so channels with the same initials still look different. */
export function hueOf(name: string): number {
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.codePointAt(0)!) >>> 0;
  return h % 360;
}

/**
 * A channel's picture, or its initials on a colour of its own, always with its platform's mark as a
 * badge in the corner. One image for assistive technology, named "<channel> on <platform>".
 * A sandbox channel (`sandbox`) gets a dashed amber ring and an "S" tag, and "(sandbox)" in its name.
 */
export function ChannelAvatar({ picture, identifier, name, size = 40, sandbox = false }: { picture: string | null; identifier: string; name: string; size?: number; sandbox?: boolean }) {
  const [broken, setBroken] = useState(false);
  const badge = Math.max(10, Math.round(size * 0.45));
  const initials = initialsOf(name);
  const letters = size < 26 ? initials.slice(0, 1) : initials;
  return (
    <span
      className={sandbox ? 'ch-avatar ch-avatar-sandbox' : 'ch-avatar'}
      role="img"
      aria-label={`${name} on ${platformName(identifier)}${sandbox ? ' (sandbox)' : ''}`}
      title={sandbox ? `${name}: sandbox ${platformName(identifier)} channel (nothing reaches ${platformName(identifier)})` : undefined}
      data-sandbox={sandbox ? 'true' : undefined}
      style={{ width: size, height: size }}
    >
      {picture && !broken ? (
        <img src={picture} alt="" width={size} height={size} loading="lazy" referrerPolicy="no-referrer" onError={() => setBroken(true)} />
      ) : (
        <span className="ch-avatar-initials" style={{ '--ch-hue': hueOf(name), fontSize: Math.round(size * (letters.length > 1 ? 0.38 : 0.5)) } as CSSProperties}>
          {letters}
        </span>
      )}
      <span className="ch-avatar-badge">
        <PlatformMark identifier={identifier} size={badge} />
      </span>
      {sandbox ? (
        <span className="ch-avatar-sandbox-tag" style={{ width: badge, height: badge, fontSize: Math.round(badge * 0.62) }} aria-hidden="true">
          S
        </span>
      ) : null}
    </span>
  );
}
