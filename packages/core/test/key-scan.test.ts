import { describe, expect, it } from 'vitest';
import { KeyScan } from '../src/key-scan.js';

const events = ['data: {"a":1}\n\n', 'data: {"usage":{"x":1}}\n\n', 'data: {"b":2}\n\n', 'data: {"usage":{"y":2}}\n\n', 'data: {"c":3}\n\n'];
const chunk = events.join('');
const bounds = (): [number, number][] => {
  const out: [number, number][] = [];
  let at = 0;
  for (const e of events) out.push([at, (at += e.length)]);
  return out;
};

describe('KeyScan', () => {
  it('answers per event what the pattern answers on the event alone, searching the chunk once per match', () => {
    const scan = new KeyScan(/"usage"/);
    expect(bounds().map(([s, e]) => scan.within(chunk, s, e))).toEqual(events.map((e) => /"usage"/.test(e)));
  });

  it('starts over on another chunk, even one with the same text, and from any event asked first', () => {
    const scan = new KeyScan(/"usage"/);
    const [, second, third, fourth] = bounds();
    expect(scan.within(chunk, ...third!)).toBe(false);
    expect(scan.within(chunk, ...fourth!)).toBe(true);
    const again = (' ' + chunk).slice(1);
    expect(scan.within(again, ...second!)).toBe(true);
    expect(scan.within('data: {"z":0}\n\n', 0, 15)).toBe(false);
  });
});

describe('KeyScan sharing its pattern', () => {
  it('gives each scan its own answers when streams interleave on one pattern', () => {
    const pattern = /"usage"/;
    const first = new KeyScan(pattern);
    const second = new KeyScan(pattern);
    const [one, two, three, four] = bounds();
    expect(first.within(chunk, ...one!)).toBe(false);
    expect(second.within(chunk, ...two!)).toBe(true);
    expect(first.within(chunk, ...two!)).toBe(true);
    expect(second.within(chunk, ...three!)).toBe(false);
    expect(first.within(chunk, ...four!)).toBe(true);
    // A global pattern is used as it is, its lastIndex set before each search.
    const global = /"usage"/g;
    global.lastIndex = 999;
    expect(new KeyScan(global).within(chunk, ...two!)).toBe(true);
  });
});
