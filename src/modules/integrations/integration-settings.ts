import { z } from 'zod';
import type { PlatformMetadata } from '../../platforms/platform.js';

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

/** `output` of `GET /integration-settings/{id}` for a platform (reference shape). */
export function describeSettings(m: PlatformMetadata) {
  return {
    rules: m.rules,
    maxLength: m.text.maxLength,
    settings: m.settings
      ? (z.toJSONSchema(m.settings, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>)
      : ('No additional settings required' as const),
    tools: m.tools.map((t) => ({ methodName: t.methodName, description: t.description, dataSchema: toolFields(t.dataSchema) })),
  };
}
