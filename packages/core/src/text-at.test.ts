import { describe, expect, it } from 'vitest';
import { startsAt } from './text-at.js';

describe('startsAt', () => {
  const text = 'event: response.output_text.delta\ndata: {"delta":"x"}\n\nevent: ping\n';

  it('answers as startsWith with a position does, at every position', () => {
    for (const prefix of ['event:', 'event: ping\n', 'data:', '\n\n', 'x', text, `${text}!`]) {
      for (let at = 0; at <= text.length + 2; at++) expect(startsAt(text, prefix, at), `${JSON.stringify(prefix)} at ${at}`).toBe(text.startsWith(prefix, at));
    }
  });

  it('finds nothing at a negative position (a slice would count it from the end)', () => {
    expect(startsAt(text, 'ping\n', -5)).toBe(false);
    expect(text.slice(-5)).toBe('ping\n');
  });

  it('reads a slice or a concatenation of another string as it reads a flat one', () => {
    const sliced = `${'x'.repeat(40)}${text}`.slice(40);
    const joined = `${text.slice(0, 10)}${text.slice(10)}`;
    for (const subject of [sliced, joined]) {
      expect(startsAt(subject, 'event: ping\n', subject.indexOf('event: ping'))).toBe(true);
      expect(startsAt(subject, 'event: ping\n', 1)).toBe(false);
    }
  });
});
