import type { DeploymentAppSetup, MediaKindRule, MediaRules, PlatformIdentifier, PlatformMetadata, ToolDefinition } from '../platform.js';
import { IMAGE_TYPES, NoToolDataSchema, VIDEO_TYPES } from './schemas.js';

/**
 * How every platform's `metadata.ts` is written: the facts that make the platform what it is
 * (names, connection, limits, media rules, concurrency, schemas, tools, rules text) in its own
 * folder, and what most platforms are (below) said once here. The result is the whole
 * `PlatformMetadata`, so everything that reads metadata sees one complete shape.
 */

/** What a platform is unless its metadata says otherwise. */
export const METADATA_DEFAULTS = {
  /** the channel lives on the platform's own host (Mastodon, Lemmy, WordPress… say `true`) */
  instanceBased: false,
  editor: 'normal',
  thread: { supported: false },
  asyncProcessing: false,
  settings: null,
  tools: [],
  rules: '',
  analytics: { channel: false, post: false },
  /** one publish at a time on a channel: a platform's own ordering and rate limits are per account */
  perChannel: 1,
} as const;

type Defaulted = 'instanceBased' | 'editor' | 'thread' | 'asyncProcessing' | 'settings' | 'tools' | 'rules' | 'analytics' | 'concurrency' | 'deploymentApp';

/**
 * The variables that hold a deployment's OAuth app at the platform, as `config.ts` reads them:
 * `<IDENTIFIER>_CLIENT_ID` and `<IDENTIFIER>_CLIENT_SECRET` (upper-case, `-` → `_`).
 */
export function oauthAppVariables(identifier: PlatformIdentifier): [string, string] {
  const prefix = identifier.toUpperCase().replace(/-/g, '_');
  return [`${prefix}_CLIENT_ID`, `${prefix}_CLIENT_SECRET`];
}

/**
 * The input of `defineMetadata`: a `PlatformMetadata` whose defaulted fields may be left out.
 * `concurrency.perPlatform` is always given (it is each platform's own rate limit); `perChannel`
 * and either `analytics` flag default as in `METADATA_DEFAULTS`.
 */
export type MetadataFacts = Omit<PlatformMetadata, Defaulted> &
  Partial<Pick<PlatformMetadata, 'instanceBased' | 'editor' | 'thread' | 'asyncProcessing' | 'settings' | 'tools' | 'rules'>> & {
    concurrency: { perPlatform: number; perChannel?: number };
    analytics?: Partial<PlatformMetadata['analytics']>;
    /** `variables` default to `oauthAppVariables(identifier)`; a platform that needs more names them all */
    deploymentApp?: Omit<DeploymentAppSetup, 'variables'> & { variables?: readonly string[] };
  };

/** A platform's complete metadata from what differs from `METADATA_DEFAULTS`. */
export function defineMetadata(facts: MetadataFacts): PlatformMetadata {
  const { identifier, displayName, appName, authKind, oauth, deploymentApp, credentials, concurrency, analytics, ...limits } = facts;
  const d = METADATA_DEFAULTS;
  // Written out in `PlatformMetadata`'s order, optional fields only when given, so that every
  // platform's metadata has the same keys in the same order.
  return {
    identifier,
    displayName,
    ...(appName !== undefined && { appName }),
    authKind,
    ...(oauth !== undefined && { oauth }),
    ...(deploymentApp !== undefined && {
      deploymentApp: { variables: deploymentApp.variables ?? oauthAppVariables(identifier), consoleUrl: deploymentApp.consoleUrl, app: deploymentApp.app },
    }),
    instanceBased: limits.instanceBased ?? d.instanceBased,
    editor: limits.editor ?? d.editor,
    text: limits.text,
    media: limits.media,
    thread: limits.thread ?? { ...d.thread },
    asyncProcessing: limits.asyncProcessing ?? d.asyncProcessing,
    concurrency: { perPlatform: concurrency.perPlatform, perChannel: concurrency.perChannel ?? d.perChannel },
    settings: limits.settings ?? d.settings,
    ...(credentials !== undefined && { credentials }),
    tools: limits.tools ?? [],
    rules: limits.rules ?? d.rules,
    analytics: { channel: analytics?.channel ?? d.analytics.channel, post: analytics?.post ?? d.analytics.post },
  };
}

/** A kind of media as a preset takes it: the count and types default, the rest is the platform's. */
type KindFacts = Partial<MediaKindRule>;

/**
 * Media rules from the kinds a platform takes. `maxItems` is the most of any one kind (no platform
 * lets kinds add up beyond that); `minItems` 0, `mixed` and `onThreadItems` false unless given.
 */
export function mediaRules(rules: {
  image?: MediaKindRule;
  video?: MediaKindRule;
  minItems?: number;
  mixed?: boolean;
  onThreadItems?: boolean;
}): MediaRules {
  const { image, video } = rules;
  return {
    minItems: rules.minItems ?? 0,
    maxItems: Math.max(image?.maxCount ?? 0, video?.maxCount ?? 0),
    ...(image && { image }),
    ...(video && { video }),
    mixed: rules.mixed ?? false,
    onThreadItems: rules.onThreadItems ?? false,
  };
}

/** Text only: the platform takes no attachments (chat messages, link posts). */
export const noMedia: MediaRules = mediaRules({});

/**
 * Pictures only, up to `max` on the first item and none on thread items; `mimeTypes` the types
 * the platform takes (default `IMAGE_TYPES`), `rule` its size and other limits.
 */
export const imagesOnly = (max: number, mimeTypes: readonly string[] = IMAGE_TYPES, rule: KindFacts = {}): MediaRules =>
  mediaRules({ image: { maxCount: max, mimeTypes, ...rule } });

/**
 * Up to `max` attachments of either kind, mixed, on the post and on its thread items: what chat and
 * forum platforms take (files in a message, links in a note). `image` and `video` add the
 * platform's types and limits to `IMAGE_TYPES` / `VIDEO_TYPES` up to `max` each.
 */
export const anyAttachments = (max: number, kinds: { image?: KindFacts; video?: KindFacts } = {}): MediaRules =>
  mediaRules({
    image: { maxCount: max, mimeTypes: IMAGE_TYPES, ...kinds.image },
    video: { maxCount: max, mimeTypes: VIDEO_TYPES, ...kinds.video },
    mixed: true,
    onThreadItems: true,
  });

/**
 * The tool that lists the accounts one grant reaches (pages, blogs, locations…) for `selectAccount`
 * (`PUT /integrations/{id}/account`); the web app offers them naming each a `noun`. It takes no data.
 */
export const accountTool = (methodName: string, noun: string, description: string): ToolDefinition => ({
  methodName,
  description,
  dataSchema: NoToolDataSchema,
  account: { noun },
});
