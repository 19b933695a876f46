import { ChannelAvatar as Avatar } from '../channels/PlatformMark.js';
import { useSandboxIds } from '../sandbox/queries.js';

/**
 * A channel on the calendar: its picture or initials, with its platform's mark (the shared avatar,
 * small); marked as a sandbox channel when `channelId` is one (looked up in GET /integrations).
 */
export function ChannelAvatar({ picture, platform, name, size = 18, channelId }: { picture: string | null; platform: string; name: string; size?: number; channelId?: string }) {
  const sandboxIds = useSandboxIds();
  return <Avatar picture={picture} identifier={platform} name={name} size={size} sandbox={channelId !== undefined && sandboxIds.has(channelId)} />;
}
