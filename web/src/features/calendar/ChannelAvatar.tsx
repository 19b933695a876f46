import { useState } from 'react';
import { platformName } from '../../lib/platforms.js';

/** A channel's picture, or its platform's initial when it has none (or it fails to load). */
export function ChannelAvatar({ picture, platform, size = 18 }: { picture: string | null; platform: string; size?: number }) {
  const [broken, setBroken] = useState(false);
  const name = platformName(platform);
  if (picture && !broken) {
    return <img className="cal-avatar" src={picture} alt="" width={size} height={size} loading="lazy" onError={() => setBroken(true)} />;
  }
  return (
    <span className={`cal-avatar cal-avatar-letter platform-${platform}`} style={{ width: size, height: size, fontSize: Math.round(size * 0.55) }} aria-hidden="true">
      {name.charAt(0).toUpperCase()}
    </span>
  );
}
