import { useState } from 'react';
import { platformName } from '../../lib/platforms.js';

/** A platform's mark: its initial on its colour (no third-party logos are loaded). */
export function PlatformMark({ identifier, size = 32 }: { identifier: string; size?: number }) {
  const name = platformName(identifier);
  return (
    <span className={`ch-mark pf-${identifier}`} style={{ width: size, height: size, fontSize: Math.round(size * 0.46) }} aria-hidden="true">
      {name.charAt(0).toUpperCase()}
    </span>
  );
}

/** A channel's picture with its platform's mark in the corner; the mark alone when there is no picture or it fails to load. */
export function ChannelAvatar({ picture, identifier, size = 40 }: { picture: string | null; identifier: string; size?: number }) {
  const [broken, setBroken] = useState(false);
  return (
    <span className="ch-avatar" style={{ width: size, height: size }}>
      {picture && !broken ? (
        <img src={picture} alt="" width={size} height={size} loading="lazy" referrerPolicy="no-referrer" onError={() => setBroken(true)} />
      ) : (
        <PlatformMark identifier={identifier} size={size} />
      )}
      {picture && !broken ? (
        <span className="ch-avatar-badge">
          <PlatformMark identifier={identifier} size={Math.round(size * 0.42)} />
        </span>
      ) : null}
    </span>
  );
}
