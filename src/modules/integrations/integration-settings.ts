import { z } from 'zod';
import type { MediaKindRule, PlatformMetadata } from '../../platforms/platform.js';

/** A tool's data schema as the reference lists it: `[{ key, type, description }]`. */
function toolFields(schema: z.ZodType) {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { type?: string | string[]; description?: string }>;
  };
  return Object.entries(json.properties ?? {}).map(([key, p]) => ({
    key,
    type: Array.isArray(p.type) ? p.type.join('|') : (p.type ?? 'object'),
    description: p.description ?? '',
  }));
}

function kindRule(r: MediaKindRule) {
  return {
    maxCount: r.maxCount,
    mimeTypes: [...r.mimeTypes],
    ...(r.maxBytes !== undefined ? { maxBytes: r.maxBytes } : {}),
    ...(r.maxDurationSeconds !== undefined ? { maxDurationSeconds: r.maxDurationSeconds } : {}),
  };
}

/** `output` of `GET /integration-settings/{id}` for a platform (reference shape). */
export function describeSettings(m: PlatformMetadata) {
  return {
    rules: m.rules,
    maxLength: m.text.maxLength,
    counting: m.text.counting,
    editor: m.editor,
    thread: { supported: m.thread.supported, ...(m.thread.kind ? { kind: m.thread.kind } : {}) },
    media: {
      minItems: m.media.minItems,
      maxItems: m.media.maxItems,
      mixed: m.media.mixed,
      onThreadItems: m.media.onThreadItems,
      ...(m.media.image ? { image: kindRule(m.media.image) } : {}),
      ...(m.media.video ? { video: kindRule(m.media.video) } : {}),
    },
    settings: m.settings
      ? (z.toJSONSchema(m.settings, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>)
      : ('No additional settings required' as const),
    tools: m.tools.map((t) => ({ methodName: t.methodName, description: t.description, dataSchema: toolFields(t.dataSchema) })),
  };
}
