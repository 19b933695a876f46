import { describe, expect, it } from 'vitest';
import { findTooDeep } from './json-body.js';

describe('findTooDeep', () => {
  it('names the path of the first container past the limit', () => {
    expect(findTooDeep('{"a":{"b":[1,{"c":{}}]}}', 3)).toEqual(['a', 'b', 1]);
    expect(findTooDeep('{"a":{"b":[1,{"c":{}}]}}', 5)).toBeUndefined();
    expect(findTooDeep('[[[[]]]]', 2)).toEqual([0, 0]);
    expect(findTooDeep('[' + '['.repeat(1_000_000), 64)).toHaveLength(64);
  });

  it('reads brackets, quotes and escapes inside strings as text', () => {
    expect(findTooDeep('{"[[[[":"{{{{\\"[[[["}', 2)).toBeUndefined();
    expect(findTooDeep('{"k\\"ey":{"x":{}}}', 2)).toEqual(['k"ey', 'x']);
    expect(findTooDeep('{"\\u0041":[[]]}', 2)).toEqual(['A', 0]);
  });

  it('leaves malformed text to the parser', () => {
    expect(findTooDeep('{"a":', 2)).toBeUndefined();
    expect(findTooDeep(']]]]{', 2)).toBeUndefined();
  });
});
