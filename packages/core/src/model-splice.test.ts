import { describe, expect, it } from 'vitest';
import { seededRandom } from './clock.js';
import { originBodyFor, originTextFor, splicedBody, withModelReplaced } from './model-splice.js';
import { requestOriginOf, setRequestOrigin, type RequestOrigin } from './request-origin.js';

/** What withModelReplaced promises, stated over the whole text: exactly one string-valued `"model"` member, and it is the model's. */
function reference(text: string, model: string, upstream: string): string | undefined {
  const matches = [...text.matchAll(/"model"\s*:\s*("(?:[^"\\]|\\.)*")/g)];
  if (matches.length !== 1 || matches[0]![1] !== JSON.stringify(model)) return undefined;
  const [match] = matches;
  return `${text.slice(0, match!.index)}"model":${JSON.stringify(upstream)}${text.slice(match!.index + match![0].length)}`;
}

describe('withModelReplaced', () => {
  it('replaces the one top-level model, spacing kept elsewhere, and gives up when the pair is not there exactly once', () => {
    expect(withModelReplaced('{ "messages": [], "model" :\n "gpt" }', 'gpt', 'gpt-5')).toBe('{ "messages": [], "model":"gpt-5" }');
    expect(withModelReplaced('{"model":"gpt","metadata":{"model":"gpt"}}', 'gpt', 'x')).toBeUndefined();
    // Another string-valued "model" anywhere, a second top-level key included (a vendor's parser may read the first; ours kept the last): serialised.
    expect(withModelReplaced('{"model":"gpt-4","tools":[{"model":"gpt"}]}', 'gpt', 'x')).toBeUndefined();
    expect(withModelReplaced('{"model":"claude-opus","messages":[],"model":"gpt"}', 'gpt', 'x')).toBeUndefined();
    expect(withModelReplaced('{"model":"gpt","tools":[{"parameters":{"model":{"type":"string"}}}]}', 'gpt', 'x')).toBe('{"model":"x","tools":[{"parameters":{"model":{"type":"string"}}}]}');
    expect(withModelReplaced('{"model":"g\\u0070t"}', 'gpt', 'x')).toBeUndefined();
    expect(withModelReplaced('{"text":"say \\"model\\": \\"gpt\\"","model":"gpt"}', 'gpt', 'x')).toBe('{"text":"say \\"model\\": \\"gpt\\"","model":"x"}');
    expect(withModelReplaced('{"models":"gpt"}', 'gpt', 'x')).toBeUndefined();
    expect(withModelReplaced('{"model":"a$&b"}', 'a$&b', 'c$1')).toBe('{"model":"c$1"}');
  });

  it('answers as the whole-text regular expression does, on seeded texts with models everywhere', () => {
    const random = seededRandom(7);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const pieces = ['"model"', ':', ' ', '\n', '"gpt"', '"gpt-5"', '"a.b"', '{', '}', ',', '"x"', '\\"model\\"', '"model":"gpt"', '"model" : "a.b"'];
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(pieces)).join('');
      const model = pick(['gpt', 'gpt-5', 'a.b']);
      expect(withModelReplaced(text, model, 'up'), text).toBe(reference(text, model, 'up'));
    }
  });

  it('gives an origin\'s text only when it says what the attempt sends about streaming', () => {
    const origin = (text: string): RequestOrigin => ({ format: 'x', body: JSON.parse(text) as Record<string, unknown>, text });
    expect(originTextFor(origin('{"model":"gpt","stream":true}'), 'up', true)).toBe('{"model":"up","stream":true}');
    expect(originTextFor(origin('{"model":"gpt","stream":true}'), 'up', false)).toBeUndefined();
    expect(originTextFor(origin('{"model":"gpt"}'), 'up', false)).toBe('{"model":"up"}');
    expect(originTextFor(origin('{"model":"gpt","stream":false}'), 'up', false)).toBe('{"model":"up","stream":false}');
    expect(originTextFor(origin('{"model":"gpt","stream":null}'), 'up', false)).toBeUndefined();
    expect(originTextFor(origin('{"model":"gpt"}'), 'up', true)).toBeUndefined();
    expect(originTextFor({ format: 'x', body: { model: 'gpt' } }, 'up', false)).toBeUndefined();
  });
});

describe('splicedBody', () => {
  it('makes the same edits to the bytes as to the text, whatever characters surround them', () => {
    const random = seededRandom(11);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const pieces = ['a', ' ', '"', 'é', 'ß', '日本', '😀', '\\n', '{', '}', 'ü'];
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 40) }, () => pick(pieces)).join('');
      const points = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * (text.length + 1))).sort((a, b) => a - b);
      // Edits start and end between whole characters (a surrogate pair is never cut), never overlapping.
      const safe = points.filter((at) => at === 0 || at === text.length || !(text.charCodeAt(at) >= 0xdc00 && text.charCodeAt(at) <= 0xdfff));
      const edits = [];
      for (let e = 0; e + 1 < safe.length; e += 2) edits.push({ start: safe[e]!, end: safe[e + 1]!, text: pick(['', 'x', '"model":"ü"', '😀']) });
      const spliced = splicedBody(text, Buffer.from(text), edits);
      expect(Buffer.from(spliced.bodyBytes!).toString('utf8'), text).toBe(spliced.body);
      expect(splicedBody(text, undefined, edits)).toEqual({ body: spliced.body });
    }
  });

  it('sends the client bytes themselves when the upstream model is the one the client wrote', () => {
    const text = '{"model":"gpt","stream":true}';
    const bytes = Buffer.from(text);
    const same = originBodyFor({ format: 'x', body: JSON.parse(text) as Record<string, unknown>, text, bytes }, 'gpt', true);
    expect(same?.body).toBe(text);
    expect(same?.bodyBytes).toBe(bytes);
    const other = originBodyFor({ format: 'x', body: JSON.parse(text) as Record<string, unknown>, text, bytes }, 'gpt-5', true);
    expect(Buffer.from(other!.bodyBytes!).toString()).toBe('{"model":"gpt-5","stream":true}');
    expect(originBodyFor({ format: 'x', body: JSON.parse(text) as Record<string, unknown>, text }, 'gpt-5', true)).toEqual({ body: '{"model":"gpt-5","stream":true}' });
  });

  it('are kept with an origin only beside its text (a continuation drops the text: its bytes go too)', () => {
    const text = '{"model":"gpt"}';
    const withText = {};
    setRequestOrigin(withText, { format: 'x', body: { model: 'gpt' }, text, bytes: Buffer.from(text) });
    expect(requestOriginOf(withText)?.bytes).toEqual(Buffer.from(text));
    const continued = {};
    setRequestOrigin(continued, { ...requestOriginOf(withText)!, body: { model: 'gpt', extra: 1 }, text: undefined });
    expect(requestOriginOf(continued)).toEqual({ format: 'x', body: { model: 'gpt', extra: 1 }, text: undefined, bytes: undefined });
  });
});
