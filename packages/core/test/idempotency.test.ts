/** Idempotency keys in the library: one upstream call for concurrent duplicates, stored answers after. */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore, systemClock, type ChatStream } from '../src/index.js';
import { runIdempotent } from '../src/internal.js';
import { testProvider } from './support/test-provider.js';
import { completion, sseBody, startLoopback, textChunks, type Loopback } from './support/loopback.js';

let servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

/**
 * A vendor that holds every request until `release()` (then answers at once), with a numbered
 * answer so every upstream call is told apart. `held: false` answers from the start.
 */
async function heldVendor({ held = true } = {}) {
  let n = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  if (!held) release();
  const server = await startLoopback(async (_req, res, body) => {
    const answer = `answer ${++n}`;
    await released;
    if (JSON.parse(body).stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(sseBody(textChunks([answer])));
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(answer)));
    }
  });
  servers.push(server);
  return Object.assign(server, { release });
}

const ask = (content = 'hi') => ({ model: 'chat', messages: [{ role: 'user' as const, content }] });
const pipelineOn = (vendor: Loopback) => createPipeline({ endpoints: [{ name: 'v', provider: 'test', baseUrl: vendor.url }], models: { chat: [{ endpoint: 'v', model: 'm' }] }, providers: [testProvider] });
const textOf = async (stream: ChatStream) => {
  let text = '';
  for await (const part of stream) if (part.type === 'text-delta') text += part.text;
  return text;
};

describe('idempotencyKey', () => {
  it('concurrent duplicates make one upstream call and get the same answer', async () => {
    const vendor = await heldVendor();
    const pipeline = pipelineOn(vendor);
    const calls = Promise.all([1, 2, 3].map(() => pipeline.chat(ask(), { idempotencyKey: 'order-1' })));
    await expect.poll(() => vendor.requests.length, { timeout: 5_000, interval: 5 }).toBe(1);
    vendor.release();
    const answers = await calls;
    expect(vendor.requests).toHaveLength(1);
    expect(new Set(answers.map((a) => a.choices[0].message.content))).toEqual(new Set(['answer 1']));
    // Without a key (or with another) each call goes upstream.
    await pipeline.chat(ask());
    await pipeline.chat(ask(), { idempotencyKey: 'order-2' });
    expect(vendor.requests).toHaveLength(3);
  });

  it('a duplicate after completion gets the stored answer, as a stream too', async () => {
    const vendor = await heldVendor({ held: false });
    const pipeline = pipelineOn(vendor);
    const first = await pipeline.chat(ask(), { idempotencyKey: 'k' });
    const again = await pipeline.chat(ask(), { idempotencyKey: 'k' });
    expect(again.choices[0].message.content).toBe(first.choices[0].message.content);
    expect(await textOf(await pipeline.stream({ ...ask(), stream: true }, { idempotencyKey: 'k' }))).toBe('answer 1');
    expect(vendor.requests).toHaveLength(1);
  });

  it('a duplicate stream while the first is in flight gets a clean 409, not a second upstream call', async () => {
    const vendor = await heldVendor();
    const pipeline = pipelineOn(vendor);
    const first = pipeline.stream({ ...ask(), stream: true }, { idempotencyKey: 's' });
    await expect.poll(() => vendor.requests.length, { timeout: 5_000, interval: 5 }).toBe(1);
    await expect(pipeline.stream({ ...ask(), stream: true }, { idempotencyKey: 's' })).rejects.toMatchObject({ kind: 'invalid-request', status: 409, code: 'SWITCHYARD_ERR_IDEMPOTENCY_CONFLICT' });
    vendor.release();
    expect(await textOf(await first)).toBe('answer 1');
    // Once the stream finished, its answer is stored: a plain duplicate gets it.
    expect((await pipeline.chat(ask(), { idempotencyKey: 's' })).choices[0].message.content).toBe('answer 1');
    expect(vendor.requests).toHaveLength(1);
  });

  it('a key reused for a different request is refused; a failed first request is not stored', async () => {
    let fail = true;
    const vendor = await startLoopback((_req, res) => {
      if (fail) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'nope' } }));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(completion('fine')));
      }
    });
    servers.push(vendor);
    const pipeline = pipelineOn(vendor);
    await expect(pipeline.chat(ask(), { idempotencyKey: 'x' })).rejects.toMatchObject({ kind: 'bad-request' });
    fail = false;
    expect((await pipeline.chat(ask(), { idempotencyKey: 'x' })).choices[0].message.content).toBe('fine');
    await expect(pipeline.chat(ask('something else'), { idempotencyKey: 'x' })).rejects.toMatchObject({ status: 422, code: 'SWITCHYARD_ERR_IDEMPOTENCY_MISMATCH' });
    await expect(pipeline.chat(ask(), { idempotencyKey: 'k'.repeat(300) })).rejects.toMatchObject({ kind: 'invalid-request', status: 400 });
  });

  it('a duplicate that takes the lease just after the first request finished gets the stored answer, not a second run', async () => {
    const store = new MemoryStateStore();
    const request = ask();
    const answer = { id: 'c', object: 'chat.completion' as const, created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant' as const, content: 'stored' }, finish_reason: 'stop' as const }] };
    // The first request holds the lease; it finishes (answer stored, lease released) right
    // between the duplicate's read of the answer and its attempt to take the lease.
    let firstDone = false;
    const acquire = store.acquireLease.bind(store);
    store.acquireLease = async (key, holder, ttlMs) => {
      if (!firstDone && holder === 'duplicate') {
        firstDone = true;
        const first = runIdempotent({ store, clock: systemClock, key: 'k', holder: 'first', mode: 'chat', request, deadlineMs: 5_000, run: async () => answer });
        await first;
      }
      return acquire(key, holder, ttlMs);
    };
    let ranAgain = false;
    const duplicate = await runIdempotent({ store, clock: systemClock, key: 'k', holder: 'duplicate', mode: 'chat', request, deadlineMs: 5_000, run: async () => ((ranAgain = true), { ...answer, choices: [] }) });
    expect(ranAgain).toBe(false);
    expect((duplicate as typeof answer).choices[0].message.content).toBe('stored');
  });
});
