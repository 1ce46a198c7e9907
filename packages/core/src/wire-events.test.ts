import { describe, expect, it } from 'vitest';
import { isUnreadEvents, keepWireText, unreadEvents, wireTextOf } from './wire-events.js';

describe('wire events', () => {
  it('an unread run is a part that adds nothing, with its text', () => {
    const part = unreadEvents('data: {"a":1}\n\n');
    expect(part.type).toBe('response-metadata');
    expect(JSON.stringify(part)).toBe('{"type":"response-metadata"}');
    expect(wireTextOf(part)).toBe('data: {"a":1}\n\n');
    expect(isUnreadEvents(part)).toBe(true);
  });

  it("a plugin's copy of a part carries no text: it is encoded", () => {
    const unread = unreadEvents('data: {"a":1}\n\n');
    const decoded = { type: 'text-delta' as const, text: 'hi' };
    keepWireText(decoded, 'data: {"b":2}\n\n');
    for (const copy of [{ ...unread }, { ...decoded }]) {
      expect(wireTextOf(copy)).toBeUndefined();
      expect(isUnreadEvents(copy)).toBe(false);
    }
    expect(wireTextOf(decoded)).toBe('data: {"b":2}\n\n');
    expect(isUnreadEvents(decoded)).toBe(false);
  });

  it("an event's other parts get '' (their text went with the first)", () => {
    const second = { type: 'finish' as const };
    keepWireText(second, '');
    expect(wireTextOf(second)).toBe('');
  });
});
