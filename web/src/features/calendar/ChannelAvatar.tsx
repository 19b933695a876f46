import { ChannelAvatar as Avatar } from '../channels/PlatformMark.js';

/** A channel on the calendar: its picture or initials, with its platform's mark (the shared avatar, small). */
export function ChannelAvatar({ picture, platform, name, size = 18 }: { picture: string | null; platform: string; name: string; size?: number }) {
  return <Avatar picture={picture} identifier={platform} name={name} size={size} />;
}
