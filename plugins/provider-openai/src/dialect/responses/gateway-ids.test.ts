import { describe, expect, it } from 'vitest';
import { leadingResponseIdOf, withIdReplaced, withIdReplacedIn, withOwnIdReplaced } from './gateway-ids.js';

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

describe('leadingResponseIdOf', () => {
  const created = (data: unknown, eventLine = true) => `${eventLine ? 'event: response.created\n' : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

  it('reads the id of an event written as OpenAI writes it, with or without the event line and the sequence number', () => {
    expect(leadingResponseIdOf(created({ type: 'response.created', sequence_number: 0, response: { id: 'resp_abc', object: 'response' } }))).toBe('resp_abc');
    expect(leadingResponseIdOf(created({ type: 'response.in_progress', response: { id: 'resp_abc' } }, false))).toBe('resp_abc');
    const spaced = `{ "type" : "response.created" , "sequence_number" : 3 , "response" : { "id" : ${JSON.stringify('resp_"q')} } }`;
    expect(leadingResponseIdOf(created(spaced))).toBe('resp_"q');
  });

  it('leaves every other shape to the parser, so an id inside the response is never taken for its own', () => {
    // The response object does not start with its id; its metadata holds a look-alike.
    const nested = { type: 'response.created', sequence_number: 0, response: { object: 'response', metadata: { response: { id: 'resp_lookalike' } }, id: 'resp_real' } };
    expect(leadingResponseIdOf(created(nested))).toBeUndefined();
    // A key before `type`, a data field split over lines, no response at all.
    expect(leadingResponseIdOf(created({ sequence_number: 0, type: 'response.created', response: { id: 'resp_x' } }))).toBeUndefined();
    expect(leadingResponseIdOf('event: response.created\ndata: {"type":"response.created",\ndata: "response":{"id":"resp_x"}}\n\n')).toBeUndefined();
    expect(leadingResponseIdOf(created({ type: 'response.output_text.delta', delta: 'hi' }))).toBeUndefined();
  });
});

describe('withIdReplacedIn', () => {
  it('answers what parsing the text withIdReplaced makes would, sharing what did not change', () => {
    const text = '{"id":"resp_1","previous":"resp_12","note":"see resp_1","output":[{"id":"msg_1","content":[]}],"echo":["resp_1",{"of":"resp_1"}],"n":1,"none":null}';
    const value = JSON.parse(text);
    const replaced = withIdReplacedIn(value, 'resp_1', 'resp_gw');
    expect(JSON.stringify(replaced)).toBe(withIdReplaced(text, 'resp_1', 'resp_gw'));
    expect(replaced.output).toBe(value.output);
    expect(value.id).toBe('resp_1');
    expect(withIdReplacedIn(value, 'resp_9', 'resp_gw')).toBe(value);
  });

  it('writes a `__proto__` key as a key, never as the copy’s prototype', () => {
    const value = JSON.parse('{"id":"a","__proto__":{"of":"a"}}');
    const replaced = withIdReplacedIn(value, 'a', 'b');
    expect(JSON.stringify(replaced)).toBe('{"id":"b","__proto__":{"of":"b"}}');
    expect(Object.getPrototypeOf(replaced)).toBe(Object.prototype);
  });
});

describe('withOwnIdReplaced', () => {
  it('copies the object with the gateway id as its own, leaving what is inside as it was; nothing when its own id is not the vendor one', () => {
    const value = { id: 'resp_1', output: [{ id: 'msg_1', note: 'resp_1' }] };
    const replaced = withOwnIdReplaced(value, 'resp_1', 'resp_gw');
    expect(replaced).toEqual({ id: 'resp_gw', output: [{ id: 'msg_1', note: 'resp_1' }] });
    expect(replaced!.output).toBe(value.output);
    expect(value.id).toBe('resp_1');
    expect(withOwnIdReplaced(value, 'resp_9', 'resp_gw')).toBeUndefined();
  });
});
