import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { declareDurableKeys, MemoryStateStore, VirtualClock } from '@switchyard/core';
import { RecordKeepingStore } from '@switchyard/core/config';
import { JournalRecords, JsonText } from '@switchyard/core/internal';
import { RESPONSE_KEY_PREFIX, ResponseStore } from './response-store.js';
import type { ResponseObject } from './wire-types.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A single gateway's store as `switchyard serve` opens it: memory in front of a journal, stored Responses durable. */
async function journaled(file: string, clock: VirtualClock): Promise<RecordKeepingStore> {
  const store = new RecordKeepingStore(new MemoryStateStore(clock), new JournalRecords(file, { clock }), { shared: false, clock });
  await store.open();
  declareDurableKeys(store, '@switchyard/gateway', { records: [RESPONSE_KEY_PREFIX] });
  return store;
}

const CAPS = { maxBytesPerKey: 1_000_000, maxBytes: 10_000_000 };

describe('ResponseStore', () => {
  const response = { id: 'resp_1', object: 'response', status: 'completed', output: [{ id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Paris "and" \u00e9', annotations: [] }] }] } as unknown as ResponseObject;
  const input = [{ role: 'user', content: 'Capital?' }] as never;

  it('keeps each answer as JSON text, counted at its length, journaled as that text, and reads it back the same after a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sy-response-store-'));
    dirs.push(dir);
    const file = path.join(dir, 'records.journal');
    const clock = new VirtualClock();
    const first = await journaled(file, clock);
    await new ResponseStore(first, clock, 60_000, 'key-a', CAPS).save(response, input, { id: 'resp_vendor', deployment: 'openai/gpt' });
    const stored = await new ResponseStore(first, clock, 60_000, 'key-a', CAPS).load('resp_1');
    expect(stored).toMatchObject({ response, input, owner: 'key-a', vendor: { id: 'resp_vendor', deployment: 'openai/gpt' } });
    const { bytes, slice, ...counted } = stored!;
    // What the store holds: the record's text, its size (the text's length before it) and its slice at the end.
    const entry = await first.get(`${RESPONSE_KEY_PREFIX}resp_1`);
    expect(entry).toBeInstanceOf(JsonText);
    expect((entry as JsonText).json).toBe(JSON.stringify({ ...counted, bytes, slice }));
    expect(bytes).toBe(JSON.stringify(counted).length);
    expect(typeof slice).toBe('number');
    await first.close();
    // The journal's line holds the text itself, not a string of it (no quote escaped), marked as such.
    const line = (await readFile(file, 'utf8')).split('\n').find((row) => row.startsWith(`["${RESPONSE_KEY_PREFIX}resp_1"`))!;
    expect(line).toBe(`["${RESPONSE_KEY_PREFIX}resp_1",${(entry as JsonText).json},${counted.expiresAt},1]`);

    const again = await journaled(file, clock);
    // Read back as the same text (a reader parses its own copy, as before the restart).
    const back = await again.get(`${RESPONSE_KEY_PREFIX}resp_1`);
    expect(back).toBeInstanceOf(JsonText);
    expect((back as JsonText).json).toBe((entry as JsonText).json);
    const restored = new ResponseStore(again, clock, 60_000, 'key-a', CAPS);
    expect(await restored.load('resp_1')).toEqual(stored);
    // Its items are found by id (`item_reference`), through the index written with it.
    expect(await restored.item('msg_1')).toEqual(response.output[0]);
    // Another key learns nothing of it.
    expect(await new ResponseStore(again, clock, 60_000, 'key-b', CAPS).load('resp_1')).toBeUndefined();
    await again.close();
  });

  it('stores a response given as text as that text, the rest of the record as before, and reads it back the same', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStateStore(clock);
    const responses = new ResponseStore(store, clock, 60_000, 'key-a', CAPS);
    const vendor = { id: 'resp_vendor', deployment: 'openai/gpt' };
    // Compact text: the same characters JSON.stringify writes for the whole record.
    await responses.save(response, input, vendor, JSON.stringify(response));
    const compact = await store.get<JsonText>(`${RESPONSE_KEY_PREFIX}resp_1`);
    const { bytes, slice, ...record } = (await responses.load('resp_1'))!;
    expect(compact!.json).toBe(JSON.stringify({ ...record, bytes, slice }));
    expect(record).toEqual({ response, input, expiresAt: clock.now() + 60_000, vendor, owner: 'key-a' });
    // The vendor's spacing is kept as written (it was not serialized again), and counted as stored.
    const spaced = JSON.stringify(response, null, 1);
    await responses.save(response, input, vendor, spaced);
    const entry = await store.get<JsonText>(`${RESPONSE_KEY_PREFIX}resp_1`);
    expect(entry!.json.startsWith(`{"response":${spaced},"input":`)).toBe(true);
    const { bytes: counted, slice: _slice, ...spacedRecord } = JSON.parse(entry!.json) as Record<string, unknown>;
    expect(counted).toBe(entry!.json.indexOf(',"bytes":') + 1);
    expect(spacedRecord).toMatchObject({ input, vendor, owner: 'key-a' });
    expect(await responses.load('resp_1')).toMatchObject({ response, input, vendor, owner: 'key-a' });
  });

  it('reads a record an earlier version stored as an object or as a string of JSON, and takes a record whose text does not parse for none', async () => {
    const clock = new VirtualClock();
    const store = new MemoryStateStore(clock);
    const expiresAt = clock.now() + 60_000;
    await store.set(`${RESPONSE_KEY_PREFIX}resp_old`, { response: { ...response, id: 'resp_old' }, input, expiresAt, bytes: 10, slice: 1 });
    await store.set(`${RESPONSE_KEY_PREFIX}resp_torn`, { text: '{"response":{"id":"resp_torn"', expiresAt, bytes: 10, slice: 1 });
    await store.set(`${RESPONSE_KEY_PREFIX}resp_text`, { text: JSON.stringify({ response: { ...response, id: 'resp_text' }, input, expiresAt }), expiresAt, bytes: 12, slice: 2 });
    await store.set(`${RESPONSE_KEY_PREFIX}resp_torn_now`, new JsonText('{"response":{"id":"resp_torn_now"'));
    const responses = new ResponseStore(store, clock, 60_000, undefined, CAPS);
    expect(await responses.load('resp_old')).toMatchObject({ response: { id: 'resp_old' }, input, bytes: 10 });
    expect(await responses.load('resp_text')).toMatchObject({ response: { id: 'resp_text' }, input, bytes: 12, slice: 2 });
    expect(await responses.load('resp_torn')).toBeUndefined();
    expect(await responses.load('resp_torn_now')).toBeUndefined();
    // Deleting the old one gives its bytes back as recorded.
    expect(await responses.delete('resp_old')).toBe(true);
    expect(await responses.load('resp_old')).toBeUndefined();
  });

  it('holds an answer given as text in a string of its own, not the chunk of the stream it was cut from', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const clock = new VirtualClock();
    const store = new MemoryStateStore(clock);
    const responses = new ResponseStore(store, clock, 60_000, undefined, { maxBytesPerKey: 1e9, maxBytes: 1e9 });
    const answers = 2_000;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < answers; i++) {
      const answer = { ...response, id: `resp_${i}`, output: [] };
      // The terminal event's response, cut out of a chunk that held the stream's other events too (8 KB).
      const chunk = `event: response.output_text.delta\ndata: {"delta":"${'x'.repeat(8_000)}"}\n\nevent: response.completed\ndata: {"type":"response.completed","response":${JSON.stringify(answer)}}\n\n`;
      const from = chunk.indexOf('{"id"');
      await responses.save(answer, [], undefined, chunk.slice(from, chunk.lastIndexOf('}}') + 1));
    }
    gc();
    const held = (process.memoryUsage().heapUsed - before) / answers;
    // About 0.6 KB each (the text, its entry and its key); the chunks would be 8 KB more each.
    expect(held).toBeLessThan(2_000);
    expect((await responses.load(`resp_${answers - 1}`))!.response.id).toBe(`resp_${answers - 1}`);
  });

  it('hands every reader a fresh copy: changing what load returned changes nothing stored', async () => {
    const clock = new VirtualClock();
    const responses = new ResponseStore(new MemoryStateStore(clock), clock, 60_000, undefined, CAPS);
    await responses.save(response, input);
    const first = await responses.load('resp_1');
    first!.response.output.length = 0;
    expect((await responses.load('resp_1'))!.response.output).toHaveLength(1);
  });
});
