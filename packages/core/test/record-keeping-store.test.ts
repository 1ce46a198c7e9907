import { appendFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { declareDurableKeys, MemoryStateStore, seededRandom, VirtualClock } from '../src/index.js';
import { RecordKeepingStore } from '../src/entry-config.js';
import { JournalRecords, JsonText, jsonTextOf, replaceFile } from '../src/internal.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function journalFile(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchyard-journal-'));
  dirs.push(dir);
  return path.join(dir, 'records.journal');
}

/** A gateway's store as openGatewayStore builds it: memory in front of the journal, tenants' keys declared. */
async function keeping(file: string): Promise<RecordKeepingStore> {
  const store = new RecordKeepingStore(new MemoryStateStore(), new JournalRecords(file), { shared: false, flushMs: 1_000 });
  await store.open();
  declareDurableKeys(store, 'tenants', { records: ['t:key:'], tallies: ['t:spend:'] });
  return store;
}

describe('JournalRecords', () => {
  it('keeps writes, deletes and compare-and-set across a reopen, and drops a torn last line', async () => {
    const file = await journalFile();
    const journal = new JournalRecords(file);
    await journal.open();
    await journal.put([{ key: 'a', value: { n: 1 }, expiresAt: null }, { key: 'b', value: 2, expiresAt: null }]);
    expect(await journal.compareAndSet('a', { n: 1 }, { n: 3 }, null)).toBe(true);
    expect(await journal.compareAndSet('a', { n: 1 }, { n: 4 }, null)).toBe(false);
    await journal.delete('b');
    await journal.close();
    // A kill in the middle of an append that was never acknowledged.
    await appendFile(file, '["c",{"half');
    const again = new JournalRecords(file);
    await again.open();
    expect(again.dropped).toBe(1);
    expect(await again.list()).toEqual([{ key: 'a', value: { n: 3 }, expiresAt: null }]);
    // The first write after the torn line is acknowledged: it must survive the next open.
    await again.put([{ key: 'd', value: 4, expiresAt: null }]);
    await again.close();
    const third = new JournalRecords(file);
    await third.open();
    expect(await third.list()).toEqual([
      { key: 'a', value: { n: 3 }, expiresAt: null },
      { key: 'd', value: 4, expiresAt: null },
    ]);
    await third.close();
  });

  it('leaves out expired records and rewrites itself with the live ones once it has grown', async () => {
    const file = await journalFile();
    const journal = new JournalRecords(file);
    await journal.open();
    await journal.put([{ key: 'gone', value: 1, expiresAt: Date.now() - 1 }]);
    expect(await journal.get('gone')).toBeUndefined();
    await journal.put(Array.from({ length: 10_100 }, (_, i) => ({ key: 'hot', value: i, expiresAt: null })));
    // The rewrite runs beside the writes; the close waits for it.
    await journal.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(10);
    const again = new JournalRecords(file);
    await again.open();
    expect(await again.get('hot')).toEqual({ key: 'hot', value: 10_099, expiresAt: null });
    await again.close();
  });
});

describe('JournalRecords and values given as JSON text', () => {
  it('writes a JsonText as its text (no quote escaped), reads it back as the same text, through a rewrite too', async () => {
    const file = await journalFile();
    const journal = new JournalRecords(file);
    await journal.open();
    // Spacing kept as the writer had it; a key and an expiry that need care to find the text between them.
    const text = '{ "answer": "say \\"hi\\" \\u00e9", "n": [1, 2] }';
    const key = 'r:"odd",1]';
    await journal.put([{ key, value: new JsonText(text), expiresAt: 4_102_444_800_000 }, { key: 'plain', value: { n: 1 }, expiresAt: null }]);
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines[0]).toBe(`${JSON.stringify([key]).slice(0, -1)},${text},4102444800000,1]`);
    expect(lines[1]).toBe('["plain",{"n":1},null]');
    await journal.close();

    const again = new JournalRecords(file);
    await again.open();
    const back = (await again.get(key))!.value;
    expect(back).toBeInstanceOf(JsonText);
    expect((back as JsonText).json).toBe(text);
    // Anything that does not know the class writes the value the text stands for.
    expect(JSON.parse(JSON.stringify({ back }))).toEqual({ back: JSON.parse(text) });
    expect(jsonTextOf(back)).toBe(text);
    expect(jsonTextOf({ n: 1 })).toBe('{"n":1}');
    // Rewritten with the live records: still the text.
    await again.put(Array.from({ length: 10_100 }, (_, i) => ({ key: 'hot', value: i, expiresAt: null })));
    await again.close();
    const third = new JournalRecords(file);
    await third.open();
    expect(((await third.get(key))!.value as JsonText).json).toBe(text);
    await third.close();
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean).length).toBeLessThan(10);
  });
});

/** A gate a test opens when it chooses. */
function gate(): { wait: Promise<void>; open: () => void; reached: Promise<void>; reach: () => void } {
  let open!: () => void;
  let reach!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return { wait, open, reached, reach };
}

describe('JournalRecords rewriting itself beside its writes', () => {
  const overwrites = (n: number) => Array.from({ length: n }, (_, i) => ({ key: 'hot', value: i, expiresAt: null }));

  it('acknowledges writes made during a rewrite before it ends, and the new file holds them, those of its last step included', async () => {
    const file = await journalFile();
    const copying = gate();
    const switching = gate();
    // The real replace, held before it copies the snapshot and again after the last of the tail.
    const replace: typeof replaceFile = (target, write, options) =>
      replaceFile(target, async (out) => {
        copying.reach();
        await copying.wait;
        await write(out);
        switching.reach();
        await switching.wait;
      }, options);
    const journal = new JournalRecords(file, { replace });
    await journal.open();
    await journal.put(Array.from({ length: 100 }, (_, i) => ({ key: `keep:${i}`, value: i, expiresAt: null })));
    // Past the threshold: the batch is acknowledged and the rewrite starts behind it.
    await journal.put(overwrites(10_100));
    await copying.reached;
    // The rewrite is held: these would wait for it if it held the journal's writes.
    await journal.put([{ key: 'during', value: 'written while the snapshot is copied', expiresAt: null }]);
    await journal.delete('keep:0');
    expect(await journal.compareAndSet<unknown>('keep:1', 1, 'changed during the rewrite', null)).toBe(true);
    copying.open();
    await switching.reached;
    // The last step holds the writes: this one goes to the new file once it is in place.
    const last = journal.put([{ key: 'last', value: 'written during the switch', expiresAt: null }]);
    switching.open();
    await last;
    await journal.close();

    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(110);
    const again = new JournalRecords(file);
    await again.open();
    expect(again.dropped).toBe(0);
    expect(await again.get('keep:0')).toBeUndefined();
    expect((await again.get('keep:1'))?.value).toBe('changed during the rewrite');
    expect((await again.get('keep:99'))?.value).toBe(99);
    expect((await again.get('hot'))?.value).toBe(10_099);
    expect((await again.get('during'))?.value).toBe('written while the snapshot is copied');
    expect((await again.get('last'))?.value).toBe('written during the switch');
    expect(again.size()).toBe(102);
    await again.close();
  });

  it('keeps its file and goes on writing when a rewrite fails, reports it, and rewrites again later', async () => {
    const file = await journalFile();
    const failures: unknown[] = [];
    let attempts = 0;
    const replace: typeof replaceFile = (target, write, options) =>
      replaceFile(target, async (out) => {
        await write(out);
        if (++attempts === 1) throw new Error('disk full');
      }, options);
    const journal = new JournalRecords(file, { replace, onRewriteError: (error) => failures.push(error) });
    await journal.open();
    await journal.put([{ key: 'kept', value: 1, expiresAt: null }]);
    await journal.put(overwrites(10_100));
    await vi.waitFor(() => expect(failures).toHaveLength(1));
    expect((failures[0] as Error).message).toBe('disk full');
    await journal.put([{ key: 'after', value: 2, expiresAt: null }]);
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean).length).toBe(10_102);
    expect((await readdir(path.dirname(file))).sort()).toEqual(['records.journal']);
    // Not again on the next write: after another 10 000 lines.
    await journal.put(overwrites(10));
    expect(attempts).toBe(1);
    await journal.put(overwrites(10_000));
    await journal.close();
    expect(attempts).toBe(2);
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean).length).toBeLessThan(10);
    const again = new JournalRecords(file);
    await again.open();
    expect(await again.list()).toEqual([
      { key: 'kept', value: 1, expiresAt: null },
      { key: 'hot', value: 9_999, expiresAt: null },
      { key: 'after', value: 2, expiresAt: null },
    ]);
    await again.close();
  });
});

describe('JournalRecords over a long run', () => {
  it('forgets records as they expire, in memory and then in the file: answers stored for a day, day after day, hold one day of them', async () => {
    const file = await journalFile();
    const clock = new VirtualClock();
    const journal = new JournalRecords(file, { clock });
    const start = clock.now();
    await journal.open();
    // 12 000 answers, each kept 500 ms, one a millisecond (a busy gateway's stored Responses, its TTL scaled down), beside a record that never expires.
    await journal.put([{ key: 'team', value: 'kept', expiresAt: null }]);
    for (let i = 0; i < 12_000; i++) {
      await journal.put([{ key: `answer:${i}`, value: { text: `answer ${i}` }, expiresAt: clock.now() + 500 }]);
      await clock.advance(1);
    }
    // Those of the last 500 ms, give or take the sweep's lag: never the 12 000 written.
    expect(journal.size()).toBeGreaterThanOrEqual(500);
    expect(journal.size()).toBeLessThan(2_000);
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(journal.size() + 10_001);
    expect(lines.some((line) => line.startsWith('["answer:0"'))).toBe(false);
    await journal.close();
    const again = new JournalRecords(file, { clock });
    await again.open();
    expect(await again.get('team')).toEqual({ key: 'team', value: 'kept', expiresAt: null });
    expect(await again.get('answer:11999')).toEqual({ key: 'answer:11999', value: { text: 'answer 11999' }, expiresAt: start + 11_999 + 500 });
    expect(await again.get('answer:11000')).toBeUndefined();
    expect(again.size()).toBeLessThan(2_000);
    await again.close();
  });

  it('reads and rewrites a journal larger than its read and write slices, characters of several bytes cut across them', async () => {
    const file = await journalFile();
    // One record longer than a slice, and many short ones, each with characters of 2, 3 and 4 bytes.
    const long = `\u00e9\u2014\ud83d\ude00${'x'.repeat(3 * 1024 * 1024)}\u00e9`;
    const records = [{ key: 'long', value: long, expiresAt: null }, ...Array.from({ length: 40_000 }, (_, i) => ({ key: `short:${i}`, value: `${'\u00e9\u2014\ud83d\ude00'.repeat(i % 17)}${i}`, expiresAt: null }))];
    const journal = new JournalRecords(file);
    await journal.open();
    await journal.put(records);
    // Overwritten past the compaction's threshold: rewritten with the live ones, in slices.
    for (let i = 0; i < 12; i++) await journal.put(Array.from({ length: 4_000 }, (_, j) => ({ key: `short:${j}`, value: `${'\u2014'.repeat(j % 5)}${j}`, expiresAt: null })));
    await journal.close();
    const lines = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(records.length + 10_001);
    const again = new JournalRecords(file);
    await again.open();
    expect(again.dropped).toBe(0);
    expect(await again.get('long')).toEqual({ key: 'long', value: long, expiresAt: null });
    expect(await again.get('short:3999')).toEqual({ key: 'short:3999', value: `${'\u2014'.repeat(3999 % 5)}3999`, expiresAt: null });
    expect(await again.get('short:39999')).toEqual({ key: 'short:39999', value: `${'\u00e9\u2014\ud83d\ude00'.repeat(39999 % 17)}39999`, expiresAt: null });
    expect(again.size()).toBe(records.length);
    await again.close();
  });
});

describe('JournalRecords', () => {
  it('refuses a write before open and after close, and closes again at once', async () => {
    const file = await journalFile();
    const journal = new JournalRecords(file);
    await expect(journal.put([{ key: 'k', value: 1, expiresAt: null }])).rejects.toThrow(`the journal ${file} is not open`);
    await journal.close();
    await journal.open();
    await journal.put([{ key: 'k', value: 1, expiresAt: null }]);
    await journal.close();
    // Before, a write that failed at once left the journal "writing" for ever, and close() spun on it.
    await expect(journal.put([{ key: 'k', value: 2, expiresAt: null }])).rejects.toThrow('is not open');
    await journal.close();
    expect(await readFile(file, 'utf8')).toBe('["k",1,null]\n');
  });
});

describe('RecordKeepingStore over memory and a journal', () => {
  it('knows a key by the longest prefix declared, a prefix declared after the key was asked about included', async () => {
    const store = await keeping(await journalFile());
    expect(store.kindOf('t:key:k1')).toBe('record');
    expect(store.kindOf('t:spend:k1:day')).toBe('tally');
    expect(store.kindOf('late:k1')).toBeUndefined();
    expect(store.kindOf('t:key:audit:k1')).toBe('record');
    declareDurableKeys(store, 'late', { tallies: ['late:'], records: ['t:key:audit:'] });
    expect(store.kindOf('late:k1')).toBe('tally');
    expect(store.kindOf('t:key:audit:k1')).toBe('record');
    declareDurableKeys(store, 'later', { tallies: ['t:key:audit:'] });
    expect(store.kindOf('t:key:audit:k1')).toBe('record');
    await store.close();
  });

  it('answers every key as the longest matching prefix does, prefixes with and without a closing colon, many keys to one head', async () => {
    const random = seededRandom(41);
    const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const parts = ['a', 'b', 'ab', 'key', 'keys', 'x:y', ''];
    const store = new RecordKeepingStore(new MemoryStateStore(), new JournalRecords(await journalFile()), { shared: false });
    await store.open();
    const declared: [string, 'record' | 'tally'][] = [];
    for (let round = 0; round < 4; round++) {
      // Prefixes like the plugins': `p:key:`, `p:keys` (no closing colon), nested ones, declared between lookups.
      const records = Array.from({ length: 3 }, () => `${pick(parts)}:${pick(parts)}${random() < 0.6 ? ':' : ''}`);
      const tallies = Array.from({ length: 2 }, () => `${pick(parts)}:${pick(parts)}:${random() < 0.6 ? '' : pick(parts)}`);
      declareDurableKeys(store, `owner-${round}`, { records, tallies });
      declared.push(...records.map((p) => [p, 'record'] as [string, 'record']), ...tallies.map((p) => [p, 'tally'] as [string, 'tally']));
      for (let i = 0; i < 500; i++) {
        const key = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(parts)).join(':') + (random() < 0.5 ? `:id${i}` : '');
        let best: [string, 'record' | 'tally'] | undefined;
        for (const entry of declared) if (key.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
        expect(store.kindOf(key), key).toBe(best?.[1]);
      }
    }
    await store.close();
  });

  it('writes records through before it resolves, checkpoints tallies, leaves soft keys out, and restores them into a new process', async () => {
    const file = await journalFile();
    const first = await keeping(file);
    await first.set('t:key:k1', { name: 'survivor' });
    await first.increment('t:spend:k1', 5_000, 60_000);
    await first.increment('t:spend:k1', 2_000, 60_000);
    await first.set('t:rpm:k1', 7);
    // The record is on disk now; the tally only after a checkpoint.
    const onDisk = () => readFile(file, 'utf8');
    expect(await onDisk()).toContain('"t:key:k1"');
    expect(await onDisk()).not.toContain('t:spend:k1');
    await first.flush();
    expect(await onDisk()).toContain('["t:spend:k1",7000,');
    expect(await onDisk()).not.toContain('t:rpm');

    // A new process: its memory starts empty and is restored from the journal.
    const second = await keeping(file);
    expect(second.restored).toBe(2);
    expect(await second.get('t:key:k1')).toEqual({ name: 'survivor' });
    expect(await second.increment('t:spend:k1', 1)).toBe(7_001);
    expect(await second.get('t:rpm:k1')).toBeUndefined();
    await first.close();
    await second.close();
  });

  it('refuses a record write with a coded 503 when the record store cannot take it, and changes nothing', async () => {
    const file = await journalFile();
    const store = await keeping(file);
    await store.records.close();
    const error = await store.set('t:key:k2', { name: 'x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SWITCHYARD_ERR_RECORDS_UNAVAILABLE', status: 503 });
    expect(await store.get('t:key:k2')).toBeUndefined();
  });
});
