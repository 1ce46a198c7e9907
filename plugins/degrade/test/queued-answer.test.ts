import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { degrade, readQueue } from '../src/index.js';
import { ask, rig, type Rig } from './harness.js';

let current: Rig | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-queued-'));
});
afterEach(async () => {
  await current?.close();
  current = undefined;
  await rm(dir, { recursive: true, force: true });
});

const busy = { type: 'canned' as const, text: 'We are busy; your question is queued and answered shortly.', queue: true };

describe('a canned answer that queues the request for replay', () => {
  it('answers now, tells the caller it was queued, and keeps the request in the queue file', async () => {
    const queueFile = join(dir, 'queue.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [busy] })]);
    current.primary.health = 'down';
    const answer = await current.pipeline.chat(ask('what is our refund policy?'), { requestId: 'req-q1' });
    expect(answer.choices[0].message.content).toBe(busy.text);
    expect(answer.switchyard).toMatchObject({ degraded: 'canned', queued: 'req-q1' });
    const [entry] = await readQueue(queueFile);
    expect(entry).toMatchObject({ id: 'req-q1', request: { messages: [{ content: 'what is our refund policy?' }] }, error: { kind: 'all-candidates-failed' } });

    // A stream request gets the canned answer as a stream, its info says queued too.
    const stream = await current.pipeline.stream(ask('and shipping?'), { requestId: 'req-q2' });
    expect(stream.info).toMatchObject({ degraded: 'canned', queued: 'req-q2' });
    await stream.collect();
    expect((await readQueue(queueFile)).map((e) => e.id)).toEqual(['req-q1', 'req-q2']);
  });

  it('a canned level without queue does not queue; queue without queueFile is a config error', async () => {
    const queueFile = join(dir, 'queue.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [{ type: 'canned', text: 'busy' }] })]);
    current.primary.health = 'down';
    expect((await current.pipeline.chat(ask())).switchyard.queued).toBeUndefined();
    expect(await readQueue(queueFile)).toEqual([]);
    await current.close();
    current = undefined;
    await expect(rig(() => [degrade({ levels: [busy] })])).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path: 'levels[0].queue' });
  });

  it('does not claim it queued what it could not write', async () => {
    // The queue file's folder is a file: the append fails.
    const blocker = join(dir, 'blocker');
    await import('node:fs/promises').then((fs) => fs.writeFile(blocker, 'x'));
    current = await rig(() => [degrade({ queueFile: join(blocker, 'queue.jsonl'), levels: [busy] })]);
    const errors: unknown[] = [];
    current.pipeline.events.on('plugin-error', (e) => errors.push(e));
    current.primary.health = 'down';
    const answer = await current.pipeline.chat(ask());
    expect(answer.choices[0].message.content).toBe(busy.text);
    expect(answer.switchyard.queued).toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});

describe('scheduled replay on the pipeline clock', () => {
  it('replays the queue every everyMs, removes answered entries and appends their answers to out', async () => {
    const queueFile = join(dir, 'queue.jsonl');
    const out = join(dir, 'answers', 'replayed.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [busy], replay: { everyMs: 60_000, out } })]);
    const runs: { replayed: number; failed: number; remaining: number }[] = [];
    current.pipeline.events.on('queue:replay', (e) => runs.push(e));
    current.primary.health = 'down';
    await current.pipeline.chat(ask('first'), { requestId: 'r1' });
    await current.pipeline.chat(ask('second'), { requestId: 'r2' });

    // Still down at the first run: both stay queued (the replay's own canned answer does not count) and are not duplicated.
    await current.clock.advance(60_000);
    await expect.poll(() => runs.length).toBe(1);
    expect(runs[0]).toMatchObject({ replayed: 0, failed: 2, remaining: 2 });
    const marked = await readQueue(queueFile);
    expect(marked.map((e) => [e.id, e.replay?.tries])).toEqual([['r1', 1], ['r2', 1]]);

    current.primary.health = 'up';
    await current.clock.advance(59_000);
    expect(runs).toHaveLength(1);
    await current.clock.advance(1_000);
    await expect.poll(() => runs.length).toBe(2);
    expect(runs[1]).toMatchObject({ replayed: 2, failed: 0, remaining: 0 });
    expect(await readQueue(queueFile)).toEqual([]);
    const answers = (await readFile(out, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(answers.map((a) => [a.id, a.response.choices[0].message.content])).toEqual([['r1', 'primary says hi'], ['r2', 'primary says hi']]);
    expect(JSON.parse(current.primary.server.requests.at(-1)!.body).messages[0].content).toBe('second');
  });

  it('an empty queue is left alone, a closed pipeline stops replaying, and replay needs queueFile', async () => {
    const queueFile = join(dir, 'queue.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [busy], replay: { everyMs: 1_000 } })]);
    const runs: unknown[] = [];
    current.pipeline.events.on('queue:replay', (e) => runs.push(e));
    await current.clock.advance(5_000);
    expect(runs).toEqual([]);
    await expect(readFile(queueFile)).rejects.toMatchObject({ code: 'ENOENT' });
    const timersBefore = current.clock.pendingTimers();
    await current.pipeline.close();
    expect(current.clock.pendingTimers()).toBe(timersBefore - 1);
    expect(() => degrade({ replay: { everyMs: 1_000 } })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS' }));
  });

  it('two pipelines on one store do not replay the same file at once', async () => {
    const queueFile = join(dir, 'queue.jsonl');
    current = await rig(() => [degrade({ queueFile, levels: [busy], replay: { everyMs: 1_000 } })]);
    current.primary.health = 'down';
    await current.pipeline.chat(ask('one'), { requestId: 'only' });
    const lease = `switchyard:degrade:replay:${queueFile}`;
    // Another holder (a second gateway, the pipeline before a reload) is replaying right now.
    expect(await current.pipeline.store.acquireLease(lease, 'someone-else', 10_000)).toBe(true);
    const runs: unknown[] = [];
    current.pipeline.events.on('queue:replay', (e) => runs.push(e));
    await current.clock.advance(1_000);
    // An absence has no condition to wait on: the window in which a replay that ignored the
    // lease would have read the file and reported.
    await new Promise((r) => setTimeout(r, 50));
    expect(runs).toEqual([]);
    expect((await readQueue(queueFile))[0].replay).toBeUndefined();
    await current.pipeline.store.releaseLease(lease, 'someone-else');
    await current.clock.advance(1_000);
    await expect.poll(() => runs.length).toBe(1);
  });
});
