import { htmlToText } from '../../platforms/common/html.js';
import { breaksDimensions, canFit, imageTargetOf } from '../../core/media/image-fit.js';
import type { MediaKindRule, PlatformAdapter, PostDraft, ValidationIssue } from '../../platforms/platform.js';
import { countingUnit, countText } from '../../platforms/text-length.js';
import { withSampleLinks } from '../../core/short-links.js';

/** A stored media item as validation sees it. */
export type DraftMedia = PostDraft['items'][number]['media'][number];

/** The state of the channel a post goes to. */
export interface ChannelState {
  name: string;
  disabled: boolean;
  refreshNeeded: boolean;
  connected: boolean;
}

/** Settings as stored: the client's object with `__type` set to the channel's platform (the client's is ignored). */
export function normaliseSettings(settings: Record<string, unknown> | undefined, identifier: string): Record<string, unknown> {
  return { __type: identifier, ...withoutType(settings ?? {}) };
}

/**
 * Everything that keeps a post from publishing on its platform, from the platform's metadata and
 * its adapter's own checks: channel state, settings schema, text length in the platform's own
 * counting, media count/kind/size/duration rules, thread support. Paths are relative to the post
 * entry (`settings.title`, `value.1.content`, `value.0.image.2`). Pure: no database, no network.
 */
export function validatePostForPlatform(
  adapter: PlatformAdapter,
  channel: ChannelState,
  post: PostDraft,
  /** a URL as long as the organisation's short links, when the post's links will be shortened: lengths count it in place of each URL */
  shortLinkSample?: string,
): ValidationIssue[] {
  const m = adapter.metadata;
  const issues: ValidationIssue[] = [];
  const name = m.displayName;

  if (!channel.connected) issues.push({ path: 'integration.id', code: 'channel_disconnected', message: `The ${name} channel "${channel.name}" has no stored credentials: reconnect it` });
  if (channel.disabled) issues.push({ path: 'integration.id', code: 'channel_disabled', message: `The ${name} channel "${channel.name}" is disabled` });
  if (channel.refreshNeeded) issues.push({ path: 'integration.id', code: 'channel_refresh_needed', message: `The ${name} channel "${channel.name}" must be reconnected before it can publish` });

  if (m.settings) {
    const parsed = m.settings.safeParse(withoutType(post.settings));
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        issues.push({ path: ['settings', ...issue.path.map(String)].join('.'), code: 'invalid_settings', message: issue.message });
      }
    }
  }

  if (post.items.length > 1 && !m.thread.supported) {
    issues.push({
      path: 'value.1',
      code: 'thread_unsupported',
      message: `${name} has no replies or comments: publish the ${post.items.length - 1} extra item(s) as separate posts`,
    });
  }

  post.items.forEach((item, i) => {
    const written = htmlToText(item.content);
    const text = shortLinkSample === undefined ? written : withSampleLinks(written, shortLinkSample);
    if (written === '' && item.media.length === 0) {
      issues.push({ path: `value.${i}.content`, code: 'empty', message: 'Your post should have at least one character or one image' });
    }
    const length = countText(text, m.text.counting);
    if (length > m.text.maxLength) {
      issues.push({
        path: `value.${i}.content`,
        code: 'too_long',
        message: `${name} allows ${m.text.maxLength} ${countingUnit(m.text.counting)}; this text has ${length}${shortLinkSample === undefined ? '' : ' with its links shortened'}`,
      });
    }
    issues.push(...mediaIssues(adapter, item.media, i));
  });

  const first = post.items[0];
  if (first && first.media.length < m.media.minItems) {
    issues.push({
      path: 'value.0.image',
      code: 'media_required',
      message: `${name} needs at least ${m.media.minItems} image or video${m.media.minItems > 1 ? 's' : ''} on the post`,
    });
  }

  issues.push(...adapter.validate(post));
  return dedupe(issues);
}

function mediaIssues(adapter: PlatformAdapter, media: DraftMedia[], index: number): ValidationIssue[] {
  const m = adapter.metadata;
  const name = m.displayName;
  const path = `value.${index}.image`;
  const issues: ValidationIssue[] = [];
  if (media.length === 0) return issues;
  if (index > 0 && !m.media.onThreadItems) {
    return [{ path, code: 'media_on_thread_item', message: `${name} replies and comments cannot carry media` }];
  }
  if (media.length > m.media.maxItems) {
    issues.push({ path, code: 'too_many_media', message: `${name} takes at most ${m.media.maxItems} media item(s) per post; this one has ${media.length}` });
  }
  const images = media.filter((x) => x.type === 'image');
  const videos = media.filter((x) => x.type === 'video');
  if (!m.media.mixed && images.length > 0 && videos.length > 0) {
    issues.push({ path, code: 'mixed_media', message: `${name} does not take images and videos in the same post` });
  }
  for (const [kind, items] of [['image', images], ['video', videos]] as const) {
    if (items.length === 0) continue;
    const rule = m.media[kind];
    if (!rule) {
      issues.push({ path, code: `${kind}_unsupported`, message: `${name} does not take ${kind}s` });
      continue;
    }
    if (items.length > rule.maxCount) {
      issues.push({ path, code: `too_many_${kind}s`, message: `${name} takes at most ${rule.maxCount} ${kind}(s) per post; this one has ${items.length}` });
    }
  }
  media.forEach((item, j) => {
    const rule = m.media[item.type];
    if (!rule) return;
    const at = `${path}.${j}`;
    // A still picture beyond the platform's type, size or dimension limits is re-encoded at publish time.
    const target = imageTargetOf(rule);
    const fittable = item.type === 'image' && canFit(item, target);
    // A platform that fetches the file itself gets it as stored: say so, or the user expects a conversion.
    const asStored = rule.pulled ? `, which it fetches as stored (convert the file before uploading it)` : '';
    if (!rule.mimeTypes.includes(item.mimeType) && !fittable) {
      issues.push({ path: at, code: 'media_type', message: `${name} does not take ${item.mimeType}; it takes ${rule.mimeTypes.join(', ')}${asStored}` });
      return;
    }
    if (rule.maxBytes !== undefined && item.size > rule.maxBytes && !fittable) {
      issues.push({ path: at, code: 'media_too_large', message: `${name} takes ${item.type}s up to ${formatBytes(rule.maxBytes)}${asStored}; this one is ${formatBytes(item.size)}` });
    }
    if (item.type === 'image' && !fittable && breaksDimensions(item, target)) {
      issues.push({ path: at, code: 'media_dimensions', message: `${name} takes pictures ${describeDimensions(rule)}; this one is ${item.width}×${item.height}` });
    }
    const ratio = rule.aspectRatio;
    if (ratio && item.width && item.height) {
      const r = item.width / item.height;
      if (r < ratio.min - 0.005 || r > ratio.max + 0.005) {
        issues.push({
          path: at,
          code: 'media_aspect_ratio',
          message: `${name} takes ${item.type}s with a width ÷ height between ${ratio.min.toFixed(2)} and ${ratio.max.toFixed(2)}; this one is ${r.toFixed(2)} (${item.width}×${item.height}): crop it`,
        });
      }
    }
    if (rule.maxDurationSeconds !== undefined && item.duration != null && item.duration > rule.maxDurationSeconds) {
      issues.push({ path: at, code: 'video_too_long', message: `${name} takes videos up to ${rule.maxDurationSeconds} s; this one lasts ${item.duration} s` });
    }
  });
  return issues;
}

function describeDimensions(rule: MediaKindRule): string {
  const parts: string[] = [];
  if (rule.minWidth !== undefined) parts.push(`at least ${rule.minWidth} px wide`);
  if (rule.maxWidth !== undefined) parts.push(`at most ${rule.maxWidth} px wide`);
  if (rule.maxHeight !== undefined) parts.push(`at most ${rule.maxHeight} px high`);
  if (rule.maxPixels !== undefined) parts.push(`of at most ${rule.maxPixels} pixels`);
  return parts.join(', ');
}

function withoutType(settings: Record<string, unknown>): Record<string, unknown> {
  const { __type: _ignored, ...rest } = settings;
  return rest;
}

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KiB`;
  return `${n} bytes`;
}

function dedupe(issues: ValidationIssue[]): ValidationIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\u0000${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
