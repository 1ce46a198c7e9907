import { describe, expect, it } from 'vitest';
import { seededRandom } from '@switchyard/core';
import { memberText } from './json-member.js';

// Characters a scan could trip on: quotes, backslashes, brackets, separators, a line break, a non-ASCII one.
const TRICKY = ['"', '\\', '{', '}', '[', ']', ',', ':', '\n', 'é', '\u2028', 'a', ' ', '\\"', 'response'];

function value(next: () => number, depth: number): unknown {
  const kind = Math.floor(next() * (depth > 3 ? 4 : 6));
  switch (kind) {
    case 0:
      return Array.from({ length: Math.floor(next() * 6) }, () => TRICKY[Math.floor(next() * TRICKY.length)]).join('');
    case 1:
      return Math.round((next() - 0.5) * 1e6) / (next() < 0.5 ? 1 : 1000);
    case 2:
      return [true, false, null][Math.floor(next() * 3)];
    case 3:
      return next() < 0.5 ? '' : -0.5e-7;
    case 4:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default:
      return object(next, depth + 1);
  }
}

function object(next: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const keys = ['id', 'response', 'type', 'a"b', 'c\\', '{', 'output'];
  for (let i = Math.floor(next() * 5); i > 0; i--) out[keys[Math.floor(next() * keys.length)]!] = value(next, depth);
  return out;
}

describe('memberText', () => {
  it('finds each member of 400 seeded objects, compact and indented, as JSON.parse reads it', () => {
    const next = seededRandom(41);
    for (let n = 0; n < 400; n++) {
      const obj = object(next, 0);
      obj.response = value(next, 1);
      for (const text of [JSON.stringify(obj), JSON.stringify(obj, null, 2), ` \n${JSON.stringify(obj, null, '\t')}\r\n`]) {
        for (const key of Object.keys(obj)) {
          const found = memberText(text, key);
          expect(found, `${key} of ${text}`).toBeDefined();
          expect(JSON.parse(found!)).toEqual(obj[key]);
        }
        expect(memberText(text, 'absent')).toBeUndefined();
      }
      // Compact text gives back exactly what JSON.stringify writes for the member.
      expect(memberText(JSON.stringify(obj), 'response')).toBe(JSON.stringify(obj.response));
    }
  });

  it('reads the member of the object only, never one nested deeper or spelled inside a string', () => {
    expect(memberText('{"a":{"response":1},"b":"\\"response\\":2","response":3}', 'response')).toBe('3');
    expect(memberText('{"a":{"response":1}}', 'response')).toBeUndefined();
    expect(memberText('{"a":"\\\\","response":[1,"]}"]}', 'response')).toBe('[1,"]}"]');
  });

  it('takes the last of duplicate keys, as JSON.parse does', () => {
    const text = '{"response":1,"response":{"id":"b"}}';
    expect(JSON.parse(memberText(text, 'response')!)).toEqual(JSON.parse(text).response);
  });

  it('reads only between start and end', () => {
    const text = 'data: {"type":"t","response":{"id":"r"}}\n\nevent: x\ndata: {"response":2}\n\n';
    expect(memberText(text, 'response', 6, text.indexOf('\n\n'))).toBe('{"id":"r"}');
  });

  it('answers undefined for what is no object, or not one whole', () => {
    for (const text of ['', '[]', '"response"', '{}', '{"response"}', '{"response":}', '{"response":{"a":1}', '{"response":"open}', '{"a":1 "response":2}', 'null']) {
      expect(memberText(text, 'response'), text).toBeUndefined();
    }
  });
});
