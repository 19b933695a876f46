import { IMAGE_TYPES, VIDEO_TYPES } from '../common/schemas.js';
import type { PlatformMetadata } from '../platform.js';

export const vkMetadata: PlatformMetadata = {
  identifier: 'vk',
  displayName: 'VK',
  authKind: 'oauth2',
  oauth: {
    authorizeUrl: 'https://id.vk.com/authorize',
    tokenUrl: 'https://id.vk.com/oauth2/auth',
    scopes: ['vkid.personal_info', 'email', 'wall', 'status', 'docs', 'photos', 'video'],
    scopeSeparator: ' ',
    pkce: true,
    refresh: true,
  },
  instanceBased: false,
  editor: 'normal',
  text: { maxLength: 2048, counting: 'characters' },
  // Up to 10 attachments on a wall post or a comment.
  media: {
    minItems: 0,
    maxItems: 10,
    image: { maxCount: 10, mimeTypes: IMAGE_TYPES },
    video: { maxCount: 10, mimeTypes: VIDEO_TYPES },
    mixed: true,
    onThreadItems: true,
  },
  thread: { supported: true, kind: 'comment' },
  asyncProcessing: false,
  // About 3 requests per second per user token.
  concurrency: { perPlatform: 3, perChannel: 1 },
  settings: null,
  tools: [],
  rules: '',
  analytics: { channel: false, post: false },
};
