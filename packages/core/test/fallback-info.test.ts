import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, definePlugin, STAGE, type ChatRequest, type Pipeline } from '../src/index.js';
import { completion, sseBody, startLoopback, textChunks, type Handler, type Loopback } from './support/loopback.js';
import { testProvider } from './support/test-provider.js';

const answering = (text: string): Handler => (_req, res, body) => {
  if (JSON.parse(body).stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(sseBody(textChunks([text])));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion(text)));
};
const failing: Handler = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: 'overloaded' } }));
};

let servers: Loopback[] = [];
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  pipeline = undefined;
});

/** Two primaries sharing priority 0 (a weighted tier) and a backup at priority 1. */
async function tiers(handlers: { a: Handler; b: Handler; backup: Handler }, extra: Parameters<typeof createPipeline>[0]['plugins'] = []) {
  servers = await Promise.all([startLoopback(handlers.a), startLoopback(handlers.b), startLoopback(handlers.backup)]);
  pipeline = createPipeline({
    endpoints: servers.map((s, i) => ({ name: ['a', 'b', 'backup'][i], provider: 'test', baseUrl: s.url })),
    models: { chat: [{ endpoint: 'a', model: 'big', priority: 0 }, { endpoint: 'b', model: 'big', priority: 0 }, { endpoint: 'backup', model: 'small', priority: 1 }] },
    providers: [testProvider],
    plugins: extra,
  });
  return pipeline;
}

const hi: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'hi' }] };

describe('switchyard.fallback: a backup model answered', () => {
  it('is absent when a primary answers, even the second primary of a shared tier', async () => {
    const p = await tiers({ a: failing, b: answering('from b'), backup: answering('from backup') });
    const answer = await p.chat(hi);
    expect(answer.switchyard).toMatchObject({ deployment: 'b/big', attempts: 2 });
    expect(answer.switchyard.fallback).toBeUndefined();
  });

  it('names the backup deployment on chat answers and stream info', async () => {
    const p = await tiers({ a: failing, b: failing, backup: answering('from backup') });
    const answer = await p.chat(hi);
    expect(answer.choices[0].message.content).toBe('from backup');
    expect(answer.switchyard.fallback).toBe('backup/small');
    const stream = await p.stream(hi);
    expect(stream.info.fallback).toBe('backup/small');
    expect((await stream.collect()).switchyard?.fallback).toBe('backup/small');
  });

  it('names a degrade level model too, but not a canned answer', async () => {
    let canned = false;
    const level = definePlugin({
      name: 'test-level',
      apply(pl) {
        pl.hooks.degrade.tapPromise({ name: 'test-level', stage: STAGE.DEFAULT }, async (_error, ctx) => {
          if (canned) return { level: 'canned', response: { id: 'c', object: 'chat.completion', created: 1, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: 'later' }, finish_reason: 'stop' }] } };
          if (ctx.state.tried) return undefined;
          ctx.state.tried = true;
          // The primary deployment again, as a degrade level: still a fallback answer.
          return { level: 'again', candidates: [...pl.candidatesFor('chat')].slice(0, 1) };
        });
      },
    });
    let calls = 0;
    const flaky: Handler = (req, res, body) => (calls++ % 2 === 0 ? failing(req, res, body) : answering('second try')(req, res, body));
    const p = await tiers({ a: flaky, b: failing, backup: failing }, [level()]);
    const answer = await p.chat(hi);
    expect(answer.switchyard).toMatchObject({ degraded: 'again', deployment: 'a/big', fallback: 'a/big' });
    canned = true;
    const cannedAnswer = await p.chat(hi);
    expect(cannedAnswer.switchyard.degraded).toBe('canned');
    expect(cannedAnswer.switchyard.fallback).toBeUndefined();
  });
});

describe('attempt.answerInfo and a degrade level with its own request', () => {
  it('merges what a call tap noted into the answer of that attempt only', async () => {
    const noting = definePlugin({
      name: 'test-noting',
      apply(pl) {
        pl.hooks.call.for('test').tap({ name: 'test-noting', stage: STAGE.FIRST }, (attempt) => {
          if (attempt.candidate.endpoint.name === 'backup') attempt.answerInfo = { truncated: { droppedMessages: 2, fromTokens: 900, toTokens: 300, contextWindow: 400 } };
          return undefined;
        });
      },
    });
    let primaryUp = true;
    const a: Handler = (req, res, body) => (primaryUp ? answering('from a') : failing)(req, res, body);
    const p = await tiers({ a, b: failing, backup: answering('from backup') }, [noting()]);
    expect((await p.chat(hi)).switchyard.truncated).toBeUndefined();
    primaryUp = false;
    const answer = await p.chat(hi);
    expect(answer.switchyard.truncated).toEqual({ droppedMessages: 2, fromTokens: 900, toTokens: 300, contextWindow: 400 });
    const stream = await p.stream(hi);
    expect(stream.info.truncated?.droppedMessages).toBe(2);
  });

  it('sends the degrade result request to its candidates', async () => {
    const smaller = definePlugin({
      name: 'test-smaller',
      apply(pl) {
        pl.hooks.degrade.tapPromise({ name: 'test-smaller', stage: STAGE.DEFAULT }, async (_error, ctx) => {
          if (ctx.state.tried) return undefined;
          ctx.state.tried = true;
          return { level: 'smaller', candidates: [...pl.candidatesFor('chat')].slice(2), request: { ...(ctx.request as ChatRequest), messages: [{ role: 'user', content: 'short' }] } };
        });
      },
    });
    let seen = '';
    const p = await tiers({ a: failing, b: failing, backup: (req, res, body) => {
      seen = JSON.parse(body).messages[0].content;
      if (seen === 'short') return answering('ok')(req, res, body);
      return failing(req, res, body);
    } }, [smaller()]);
    const answer = await p.chat(hi);
    expect(seen).toBe('short');
    expect(answer.switchyard).toMatchObject({ degraded: 'smaller', fallback: 'backup/small', attempts: 4 });
  });
});
