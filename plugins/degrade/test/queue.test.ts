import { mkdtemp, readFile, rm, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { degrade, readQueue, replayQueue, type ReplayResult } from '../src/index.js';
import { appendToQueue } from '../src/queue.js';
import { ask, rig, type Rig } from './harness.js';

let current: Rig | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-queue-'));
});
afterEach(async () => {
  await current?.close();
  current = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('durable queue', () => {
  it('keeps a request that failed at every level, without secrets, and replays it once upstream is back', async () => {
    const queueFile = join(dir, 'nested', 'failed.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [{ type: 'model', model: 'mini' }] })]);
    current.primary.health = current.cheap.health = 'down';
    const err = await current.pipeline.chat(ask('please answer', { temperature: 0.3, switchyard: { tags: { team: 'search' } } }), { requestId: 'req-1' }).catch((e) => e);
    expect(err.kind).toBe('all-candidates-failed');
    const raw = await readFile(queueFile, 'utf8');
    expect(raw).not.toContain('sk-');
    expect(raw.trim().split('\n')).toHaveLength(1);
    const [entry] = await readQueue(queueFile);
    expect(entry).toMatchObject({
      id: 'req-1',
      time: '2025-03-01T00:00:00.000Z',
      model: 'chat',
      stream: false,
      request: { model: 'chat', temperature: 0.3, messages: [{ role: 'user', content: 'please answer' }] },
      error: { kind: 'all-candidates-failed', code: 'SWITCHYARD_ERR_ALL_CANDIDATES_FAILED' },
      attempts: [{ deployment: 'openai/gpt-4o', kind: 'overloaded', status: 503 }, { deployment: 'cheap/gpt-4o-mini', kind: 'overloaded', status: 503 }],
    });
    expect(entry.error.message).toContain('model:mini');

    // Still down: the entry stays, marked, and is not duplicated by the replay's own failure.
    const results: ReplayResult[] = [];
    expect(await replayQueue(queueFile, current.pipeline, { onResult: (r) => void results.push(r) })).toEqual({ replayed: 0, failed: 1, remaining: 1 });
    const [marked] = await readQueue(queueFile);
    expect(marked.replay).toMatchObject({ tries: 1 });
    expect(results[0]).toMatchObject({ ok: false, entry: { id: 'req-1' } });

    current.primary.health = 'up';
    const summary = await replayQueue(queueFile, current.pipeline, { onResult: (r) => void results.push(r) });
    expect(summary).toEqual({ replayed: 1, failed: 0, remaining: 0 });
    expect(results[1]).toMatchObject({ ok: true, response: { choices: [{ message: { content: 'primary says hi' } }] } });
    expect(await readQueue(queueFile)).toEqual([]);
    const sent = JSON.parse(current.primary.server.requests.at(-1)!.body);
    expect(sent.messages[0].content).toBe('please answer');
  });

  it('does not queue answered, degraded or rejected requests', async () => {
    const queueFile = join(dir, 'q.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [{ type: 'canned', text: 'busy' }] })]);
    await current.pipeline.chat(ask());
    current.primary.health = 'down';
    await current.pipeline.chat(ask());
    current.primary.health = 'bad-request';
    await current.pipeline.chat(ask()).catch(() => undefined);
    expect(await readQueue(queueFile)).toEqual([]);
  });

  it('a canned answer during replay does not count as replayed; foreign lines survive a rewrite', async () => {
    const queueFile = join(dir, 'q.jsonl');
    current = await rig(() => [degrade({ queueFile })]);
    current.primary.health = 'down';
    await current.pipeline.chat(ask(), { requestId: 'a' }).catch(() => undefined);
    await appendFile(queueFile, 'not json\n');
    const replayer = await rig(() => [degrade({ levels: [{ type: 'canned', text: 'busy' }] })]);
    try {
      replayer.primary.health = 'down';
      expect(await replayQueue(queueFile, replayer.pipeline)).toEqual({ replayed: 0, failed: 1, remaining: 1 });
      expect((await readFile(queueFile, 'utf8')).split('\n')).toContain('not json');
    } finally {
      await replayer.close();
    }
  });

  it('readQueue of a missing file is empty', async () => {
    expect(await readQueue(join(dir, 'none.jsonl'))).toEqual([]);
  });
});

describe('durable queue writes', () => {
  it('loses none of the requests queued while a replay rewrites the file', async () => {
    const queueFile = join(dir, 'q.jsonl');
    current = await rig(() => []);
    current.primary.health = 'up';
    const entry = (id: string) => ({ id, time: '2025-03-01T00:00:00.000Z', model: 'chat', stream: false, request: ask(`question ${id}`), error: { kind: 'all-candidates-failed', code: 'X', message: 'down' }, attempts: [] });
    await appendToQueue(queueFile, entry('old-1'));
    const appends: Promise<void>[] = [];
    // The last replayed answer starts 100 appends that race the rewrite of the file (read, write, rename).
    await replayQueue(queueFile, current.pipeline, {
      onResult: () => {
        for (let i = 0; i < 100; i++) appends.push(appendToQueue(queueFile, entry(`new-${i}`)));
      },
    });
    await Promise.all(appends);
    const ids = (await readQueue(queueFile)).map((e) => e.id).sort();
    expect(ids).toEqual(Array.from({ length: 100 }, (_, i) => `new-${i}`).sort());
  });
});
