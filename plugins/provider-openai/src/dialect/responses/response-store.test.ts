import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { declareDurableKeys, MemoryStateStore, VirtualClock } from '@switchyard/core';
import { RecordKeepingStore } from '@switchyard/core/config';
import { JournalRecords } from '@switchyard/core/internal';
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

describe('ResponseStore on a journal', () => {
  it('writes each stored answer once, with its size and slice, and reads it back the same after a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'sy-response-store-'));
    dirs.push(dir);
    const file = path.join(dir, 'records.journal');
    const clock = new VirtualClock();
    const first = await journaled(file, clock);
    const response = { id: 'resp_1', object: 'response', status: 'completed', output: [{ id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Paris "and" \u00e9', annotations: [] }] }] } as unknown as ResponseObject;
    const input = [{ role: 'user', content: 'Capital?' }] as never;
    await new ResponseStore(first, clock, 60_000, 'key-a', CAPS).save(response, input, { id: 'resp_vendor', deployment: 'openai/gpt' });
    const stored = await new ResponseStore(first, clock, 60_000, 'key-a', CAPS).load('resp_1');
    expect(stored).toMatchObject({ response, input, owner: 'key-a', vendor: { id: 'resp_vendor', deployment: 'openai/gpt' } });
    const { bytes, slice, ...counted } = stored!;
    expect(bytes).toBe(JSON.stringify(counted).length);
    expect(typeof slice).toBe('number');
    // The journal's line for it is the record as JSON.stringify writes it, made once when it was counted.
    const line = (await readFile(file, 'utf8')).split('\n').find((l) => l.startsWith(`["${RESPONSE_KEY_PREFIX}resp_1"`))!;
    expect(JSON.parse(line)[1]).toEqual(stored);
    expect(line).toBe(JSON.stringify([`${RESPONSE_KEY_PREFIX}resp_1`, stored, JSON.parse(line)[2]]));
    await first.close();

    const again = await journaled(file, clock);
    const restored = new ResponseStore(again, clock, 60_000, 'key-a', CAPS);
    expect(await restored.load('resp_1')).toEqual(stored);
    // Its items are found by id (`item_reference`), through the index written with it.
    expect(await restored.item('msg_1')).toEqual(response.output[0]);
    await again.close();
  });
});
