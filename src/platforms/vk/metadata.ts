import { z } from 'zod';
import { MiB, NoToolDataSchema } from '../common/schemas.js';
import { anyAttachments, defineMetadata } from '../common/define-metadata.js';

/**
 * VK post settings. The reference API has no VK settings (existing clients send only `__type`,
 * which still validates); these two are Tidings' own, named after what VK calls them: the
 * community whose wall the post goes to (its id as the `communities` tool lists it, without the
 * minus sign VK's `owner_id` uses) and whether it is posted as the community (`from_group`,
 * default true) or as the user. Without `community` the post goes to the user's own wall.
 */
export const VkSettingsSchema = z
  .object({
    community: z
      .string()
      .trim()
      .regex(/^(\d{1,12})?$/, 'community must be a community id (digits, as the communities tool lists it)')
      .optional(),
    from_group: z.boolean().optional(),
  })
  .superRefine((s, ctx) => {
    if (s.from_group === true && !s.community) {
      ctx.addIssue({ code: 'custom', path: ['from_group'], message: 'from_group needs a community: choose one with the communities tool' });
    }
  });

export const vkMetadata = defineMetadata({
  identifier: 'vk',
  displayName: 'VK',
  authKind: 'oauth2',
  deploymentApp: {
    consoleUrl: 'https://id.vk.com/about/business/go',
    app: 'a VK ID application of type "Web" (its protected key is VK_CLIENT_SECRET)',
  },
  oauth: {
    authorizeUrl: 'https://id.vk.com/authorize',
    tokenUrl: 'https://id.vk.com/oauth2/auth',
    scopes: ['vkid.personal_info', 'email', 'wall', 'status', 'docs', 'photos', 'video', 'groups'],
    scopeSeparator: ' ',
    pkce: true,
    refresh: true,
  },
  text: { maxLength: 2048, counting: 'characters' },
  // Up to 10 attachments on a wall post or a comment. Photos (photos.saveWallPhoto): JPG, PNG, GIF
  // up to 50 MB. video.save uploads up to 256 GB in theory; 2 GB keeps one publish attempt bounded.
  media: anyAttachments(10, {
    image: { platformTypes: ['image/jpeg', 'image/png', 'image/gif'], maxBytes: 50 * MiB },
    video: { maxBytes: 2048 * MiB },
  }),
  thread: { supported: true, kind: 'comment' },
  // About 3 requests per second per user token.
  concurrency: { perPlatform: 3 },
  settings: VkSettingsSchema,
  tools: [
    {
      methodName: 'communities',
      description: 'The communities the user administers or edits (settings.community takes one of their ids)',
      dataSchema: NoToolDataSchema,
    },
  ],
  analytics: { post: true },
});
