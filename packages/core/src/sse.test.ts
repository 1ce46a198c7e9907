import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SseParser, sseEventNameAt } from './sse.js';

const enc = new TextEncoder();

function parseAll(chunks: (string | Uint8Array)[]) {
  const p = new SseParser();
  const events = chunks.flatMap((c) => p.push(c));
  return { events: [...events, ...p.end()], parser: p };
}

describe('SseParser', () => {
  it('splits events on LF, CRLF and CR blank lines', () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      const { events } = parseAll([`data: a${nl}${nl}data: b${nl}${nl}`]);
      expect(events.map((e) => e.data)).toEqual(['a', 'b']);
    }
  });

  it('keeps event names, ids and multi-line data; skips comments', () => {
    const { events, parser } = parseAll([': keep-alive\n', 'event: message_start\nid: 7\ndata: {"a":\ndata: 1}\n\n']);
    expect(events).toEqual([{ event: 'message_start', id: '7', data: '{"a":\n1}' }]);
    expect(parser.comments).toBe(1);
  });

  it('reassembles UTF-8 sequences split across chunks', () => {
    const bytes = enc.encode('data: héllo 🌍\n\n');
    const cut = 9; // inside the é / emoji bytes
    const { events } = parseAll([bytes.slice(0, cut), bytes.slice(cut, cut + 5), bytes.slice(cut + 5)]);
    expect(events[0].data).toBe('héllo 🌍');
  });

  it('handles a CRLF pair split across two chunks as one line end', () => {
    const { events } = parseAll(['data: x\r', '\n\r', '\ndata: y\r\n\r\n']);
    expect(events.map((e) => e.data)).toEqual(['x', 'y']);
  });

  it('counts unknown fields and never throws on junk', () => {
    const { events, parser } = parseAll(['garbage line\nfoo: bar\ndata: ok\n\n']);
    expect(events.map((e) => e.data)).toEqual(['ok']);
    expect(parser.ignoredLines).toBe(2);
  });

  it('delivers a last event that has no trailing blank line', () => {
    const { events } = parseAll(['data: last']);
    expect(events.map((e) => e.data)).toEqual(['last']);
  });

  it('yields the same events however the byte stream is chunked (property)', () => {
    const text = 'event: a\ndata: 1\r\n\r\n: c\ndata: ü\rdata: 2\r\rdata: [DONE]\n\n';
    const bytes = enc.encode(text);
    const reference = parseAll([bytes]).events;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 8 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks: Uint8Array[] = [];
        let prev = 0;
        for (const p of points) {
          chunks.push(bytes.slice(prev, p));
          prev = p;
        }
        chunks.push(bytes.slice(prev));
        expect(parseAll(chunks).events).toEqual(reference);
      }),
      { numRuns: 300 },
    );
  });

  it('one event past maxEventChars throws a coded server error, whether its data lines or one unended line grow (issue 34 row 12)', () => {
    const lines = new SseParser(100);
    expect(lines.push(`data: ${'a'.repeat(50)}\n\n`)).toHaveLength(1);
    lines.push(`data: ${'a'.repeat(60)}\n`);
    expect(() => lines.push(`data: ${'a'.repeat(60)}\n`)).toThrow(expect.objectContaining({ kind: 'server', code: 'SWITCHYARD_ERR_RESPONSE_TOO_LARGE' }));
    const unended = new SseParser(100);
    unended.push('data: ');
    expect(() => unended.push('b'.repeat(200))).toThrow(/larger than the limit of 100 characters/);
  });
});

describe('sseEventNameAt', () => {
  const parsedName = (text: string) => parseAll([text]).events[0]?.event;

  it('reads the name the parser reads, from the text in place', () => {
    for (const text of ['event: message_start\ndata: {}\n\n', 'event:message_start\ndata: {}\n\n', 'event: response.created\r\ndata: {}\r\n\r\n']) {
      expect(sseEventNameAt(text)).toBeDefined();
      expect(sseEventNameAt(text)).toBe(parsedName(text));
    }
    const chunk = 'data: {"a":1}\n\nevent: ping\ndata: {}\n\n';
    expect(sseEventNameAt(chunk, chunk.indexOf('event:'))).toBe('ping');
  });

  it('has no name for an event without a leading event line, or with white space the parser would keep', () => {
    expect(sseEventNameAt('data: {"type":"ping"}\n\n')).toBeUndefined();
    expect(sseEventNameAt('id: 1\nevent: ping\ndata: {}\n\n')).toBeUndefined();
    expect(sseEventNameAt('event:\ndata: {}\n\n')).toBeUndefined();
    // The parser keeps these spaces (" ping", "ping "); a client reading the JSON's type would not: such an event is read from its data.
    expect(parsedName('event:  ping\ndata: {}\n\n')).toBe(' ping');
    expect(sseEventNameAt('event:  ping\ndata: {}\n\n')).toBeUndefined();
    expect(sseEventNameAt('event: ping \ndata: {}\n\n')).toBeUndefined();
  });

  it('does not look past the end of the event', () => {
    const text = 'event: ping\ndata: {}\n\n';
    expect(sseEventNameAt(text, 0, 9)).toBe('pi');
    expect(sseEventNameAt('event: ping', 0)).toBe('ping');
  });
});
