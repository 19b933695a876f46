import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { requiredSecret, requiredText } from './schemas.js';

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

describe('requiredText', () => {
  it('takes text of at least the given length as typed, naming the length when shorter and "Required" when missing', () => {
    expect(requiredText(2).parse(' ab')).toBe(' ab');
    expect(requiredText(6).safeParse('short').error?.issues.map((i) => i.message)).toEqual(['Must be at least 6 characters']);
    expect(requiredText(2).safeParse(undefined).error?.issues.map((i) => i.message)).toEqual(['Required']);
  });
});
