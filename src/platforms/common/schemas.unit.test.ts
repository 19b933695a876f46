import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requiredSecret } from './schemas.js';

describe('requiredSecret', () => {
  it('removes surrounding whitespace (a pasted key with a trailing newline) and keeps inner spaces', () => {
    expect(requiredSecret().parse('  tok en\n')).toBe('tok en');
  });

  it('refuses an empty, all-space or missing secret as "Required"', () => {
    for (const input of ['', '   ', '\n\t', undefined]) {
      const r = requiredSecret().safeParse(input);
      expect(r.success).toBe(false);
      expect(r.error?.issues.map((i) => i.message)).toEqual(['Required']);
    }
  });

  it('carries its description into the JSON Schema of the credentials form', () => {
    expect(z.toJSONSchema(z.object({ key: requiredSecret('the API key') })).properties).toMatchObject({ key: { type: 'string', minLength: 1, description: 'the API key' } });
  });

});
