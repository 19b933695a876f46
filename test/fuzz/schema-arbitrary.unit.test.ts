import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deepText, Fill, jsonText, mutationOf, placesOf, RawJson, replaceAt } from './mutations.js';
import { createValidators, type OpenApiDocument } from './openapi.js';
import { arbitraryFor, type Schema } from './schema-arbitrary.js';

/** The fuzz tier's own machinery: valid values really are valid, mutations do what they say. */

const DATE_TIME_PATTERN =
  '^(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))T(?:(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z))$';

// Shaped like what zod 4 emits for the API's schemas, with every keyword the converter covers.
const doc: OpenApiDocument = {
  paths: {},
  components: {
    schemas: {
      Media: {
        type: 'object',
        properties: { id: { type: 'string', format: 'uuid' }, width: { anyOf: [{ type: 'integer', minimum: 1, maximum: 10_000 }, { type: 'null' }] } },
        required: ['id', 'width'],
        additionalProperties: false,
      },
    },
  },
};

const schemas: Record<string, Schema> = {
  'a post body': {
    type: 'object',
    properties: {
      type: { default: 'schedule', type: 'string', enum: ['draft', 'schedule', 'now', 'update'] },
      date: { type: 'string', format: 'date-time', pattern: DATE_TIME_PATTERN },
      tags: { maxItems: 3, type: 'array', items: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'], additionalProperties: {} } },
      posts: {
        minItems: 1,
        maxItems: 2,
        type: 'array',
        items: {
          type: 'object',
          properties: {
            value: { minItems: 1, maxItems: 3, type: 'array', items: { type: 'object', properties: { content: { type: 'string', maxLength: 20 }, delay: { type: 'integer', minimum: 0, maximum: 43_200 } } } },
            settings: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
          },
          required: ['value'],
        },
      },
      media: { $ref: '#/components/schemas/Media' },
      inter: {},
    },
    required: ['posts'],
    additionalProperties: {},
  },
  'type arrays, consts, numbers, formats': {
    type: 'object',
    properties: {
      nullable: { type: ['string', 'null'], minLength: 2, maxLength: 4 },
      kind: { const: 'fixed' },
      ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
      page: { type: 'integer', minimum: 0, maximum: 1_000_000 },
      big: { type: 'integer', minimum: -9_007_199_254_740_991, maximum: 9_007_199_254_740_991 },
      url: { type: 'string', format: 'uri', maxLength: 2000 },
      email: { type: 'string', format: 'email' },
      code: { type: 'string', pattern: '^[A-Z]{3}-\\d{2}$' },
      flag: { type: 'boolean' },
      nothing: { type: 'null' },
    },
    required: ['nullable', 'kind', 'ratio', 'page', 'big', 'url', 'email', 'code', 'flag', 'nothing'],
    additionalProperties: false,
  },
  'allOf and oneOf': {
    allOf: [
      { type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] },
      { type: 'object', properties: { b: { oneOf: [{ type: 'integer', minimum: 5, maximum: 6 }, { type: 'string', enum: ['x', 'y'] }] } }, required: ['b'] },
    ],
  },
};

describe('schema → arbitrary', () => {
  const validators = createValidators(doc);
  for (const [name, schema] of Object.entries(schemas)) {
    it(`generates only values the schema admits: ${name}`, () => {
      fc.assert(
        fc.property(arbitraryFor(schema, { root: doc }), (value) => {
          expect(validators.check(name, schema, value), JSON.stringify(value)).toBeUndefined();
        }),
        { numRuns: 300, seed: 1 },
      );
    });
  }

  it('mixes in the values a hint offers, where it offers them', () => {
    const schema: Schema = { type: 'object', properties: { id: { type: 'string' }, other: { type: 'string' } }, required: ['id', 'other'] };
    const seen = fc.sample(arbitraryFor(schema, { hint: (path) => (path.at(-1) === 'id' ? fc.constant('HINTED') : undefined) }), { numRuns: 200, seed: 2 }) as { id: string; other: string }[];
    expect(seen.filter((v) => v.id === 'HINTED').length).toBeGreaterThan(100);
    expect(seen.some((v) => v.id !== 'HINTED')).toBe(true);
    expect(seen.every((v) => v.other !== 'HINTED')).toBe(true);
  });
});

describe('mutations', () => {
  const limit = 200_000;
  const schema = schemas['a post body']!;

  it('change exactly one place, leave the valid body untouched, and say where', () => {
    fc.assert(
      fc.property(
        arbitraryFor(schema, { root: doc }).chain((body) => fc.tuple(fc.constant(body), fc.constant(JSON.stringify(body)), mutationOf(body, schema, doc, limit))),
        ([body, before, mutated]) => {
          expect(JSON.stringify(body)).toBe(before);
          expect(mutated.mutation.at).toBeTruthy();
          const text = jsonText(mutated.value);
          if (mutated.mutation.overLimit) expect(Buffer.byteLength(text)).toBeGreaterThan(limit);
          else if (mutated.mutation.kind !== 'deep-nesting') expect(Buffer.byteLength(text)).toBeLessThan(limit);
        },
      ),
      { numRuns: 300, seed: 3 },
    );
  });

  it('flag the removal of a required key without a default (and only that)', () => {
    const body = { posts: [{ value: [{}] }], type: 'draft' };
    const places = placesOf(body, schema, doc);
    expect(places.find((p) => p.key === 'posts')).toMatchObject({ required: true, hasDefault: false });
    expect(places.find((p) => p.key === 'type')).toMatchObject({ required: false, hasDefault: true });
  });

  it('fill a body to the exact byte size asked, in every kind of filler', () => {
    for (const kind of ['string', 'wide-string', 'array'] as const) {
      for (const size of [100, 101, 4096, 65_537]) {
        const text = jsonText({ a: 'x', pad: new Fill(kind, size) });
        expect(Buffer.byteLength(text), `${kind} ${size}`).toBe(size);
        expect(() => JSON.parse(text) as unknown).not.toThrow();
      }
    }
  });

  it('send raw JSON text where JSON.stringify could not', () => {
    const text = jsonText({ deep: new RawJson(deepText(10_000, 'array'), 'deep'), n: new RawJson('1e400', 'big') });
    expect(text.startsWith('{"deep":[[[')).toBe(true);
    expect(text.endsWith(']]],"n":1e400}')).toBe(true);
    expect(deepText(3, 'object')).toBe('{"a":{"a":{"a":1}}}');
  });

  it('replace and remove by path without touching the original, `__proto__` kept as a key', () => {
    const original = { a: [1, { b: 2 }], c: 3 };
    expect(replaceAt(original, ['a', 1, 'b'], 9)).toEqual({ a: [1, { b: 9 }], c: 3 });
    expect(replaceAt(original, ['c'], undefined, true)).toEqual({ a: [1, { b: 2 }] });
    expect(original).toEqual({ a: [1, { b: 2 }], c: 3 });
    const withProto = JSON.parse('{"__proto__":{"polluted":true},"x":1}') as Record<string, unknown>;
    expect(jsonText(replaceAt(withProto, ['x'], 2))).toBe('{"__proto__":{"polluted":true},"x":2}');
  });
});
