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
