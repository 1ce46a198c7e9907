import { describe, expect, it } from 'vitest';
import { withIdReplaced } from './gateway-ids.js';

describe('withIdReplaced', () => {
  it('replaces every whole JSON string equal to the id, and nothing else', () => {
    const text = '{"id":"resp_1","previous":"resp_12","note":"see resp_1","nested":{"id":"resp_1"}}';
    expect(withIdReplaced(text, 'resp_1', 'resp_gw')).toBe('{"id":"resp_gw","previous":"resp_12","note":"see resp_1","nested":{"id":"resp_gw"}}');
  });

  it('writes a replacement with `$` in it as it is (no replacement patterns)', () => {
    expect(withIdReplaced('{"id":"a"}', 'a', "b$&$1$$c$'")).toBe(`{"id":"b$&$1$$c$'"}`);
  });

  it('leaves a text without the id unchanged, and escapes what JSON escapes', () => {
    expect(withIdReplaced('{"id":"x"}', 'y', 'z')).toBe('{"id":"x"}');
    expect(withIdReplaced('{"id":"a\\"b"}', 'a"b', 'c"d')).toBe('{"id":"c\\"d"}');
  });
});
