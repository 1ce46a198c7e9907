import { afterEach, describe, expect, it } from 'vitest';
import { APIError } from 'openai';
import { VirtualClock } from '@switchyard/core';
import { answers, chatBody, fails, held, pipelineFor, raw, sseBody, startGateway, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1, model: 'upstream-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** The JSON of the stream's last `data:` event. */
function lastEvent(text: string): unknown {
  const events = text.split('\n\n').filter((e) => e.startsWith('data: '));
  return JSON.parse(events.at(-1)!.slice(6));
}

describe('streaming chat through the OpenAI SDK', () => {
  it('streams chat.completion.chunk events, the usage chunk on request, then [DONE]', async () => {
    const primary = await vendor(answers(['Hel', 'lo', '!']));
    const { client, origin } = await startGateway(pipelineFor({ vendors: { primary } }));
    const { data: stream, response } = await client.chat.completions.create({ ...ask, stream: true, stream_options: { include_usage: true } }).withResponse();
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.headers.get('x-switchyard-endpoint')).toBe('primary');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    let text = '';
    let usage: unknown;
    const finishes: (string | null)[] = [];
    for await (const c of stream) {
      expect(c.object).toBe('chat.completion.chunk');
      text += c.choices[0]?.delta.content ?? '';
      if (c.choices[0]) finishes.push(c.choices[0].finish_reason);
      if (c.usage) usage = c.usage;
    }
    expect(text).toBe('Hello!');
    expect(finishes.at(-1)).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 4, completion_tokens: 3, total_tokens: 7 });

    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(wire.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(wire.text).not.toContain('"usage"');
  });

  it('works with the SDK stream helper, including tool calls', async () => {
    const primary = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sseBody([
          chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '"x"}' } }] }),
          chunk({}, 'tool_calls'),
        ]),
      );
    });
    const { client } = await startGateway(pipelineFor({ vendors: { primary } }));
    const runner = client.chat.completions.stream({ ...ask, tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.choices[0].message.tool_calls?.[0]).toMatchObject({ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } });
  });

  it('fails over before the commit point without the client noticing', async () => {
    // The primary opens its stream, sends a role-only chunk, then drops the connection.
    const cut = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody([chunk({ role: 'assistant' })], false));
      setTimeout(() => res.destroy(), 5);
    });
    const backup = await vendor(answers(['whole ', 'answer']));
    const { client } = await startGateway(pipelineFor({ vendors: { cut, backup } }));
    const { data: stream, response } = await client.chat.completions.create({ ...ask, stream: true }).withResponse();
    let text = '';
    for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('whole answer');
    expect(response.headers.get('x-switchyard-endpoint')).toBe('backup');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(cut.requests).toHaveLength(1);
  });

  it('an error after the commit point makes the SDK throw instead of returning a truncated answer', async () => {
    const flaky = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody([chunk({ role: 'assistant', content: 'The answer is' })], false));
      setTimeout(() => res.destroy(), 10);
    });
    const backup = await vendor(answers(['never used']));
    const { client, origin } = await startGateway(pipelineFor({ vendors: { flaky, backup } }));
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    let text = '';
    const read = (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    })();
    await expect(read).rejects.toBeInstanceOf(APIError);
    await expect(read).rejects.toMatchObject({ code: 'upstream_error', type: 'server_error' });
    expect(text).toBe('The answer is');
    expect(backup.requests).toHaveLength(0);

    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(wire.status).toBe(200);
    expect(lastEvent(wire.text)).toMatchObject({ error: { type: 'server_error', code: 'upstream_error', param: null } });
    expect(wire.text).not.toContain('[DONE]');
  });

  it('sends SSE heartbeats while it waits for failover before the commit point', async () => {
    const slow = held(fails(503));
    const slowVendor = await vendor(slow.handler);
    const backup = await vendor(answers(['late but whole']));
    // Heartbeats run on the gateway's clock: two beats pass while the vendor holds the request.
    const clock = new VirtualClock();
    const { client, origin } = await startGateway(pipelineFor({ vendors: { slow: slowVendor, backup } }), { clock, server: { heartbeatMs: 25 } });
    const pending = raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    await expect.poll(slow.waiting, { timeout: 5_000, interval: 5 }).toBe(1);
    await clock.advance(50);
    slow.release();
    const wire = await pending;
    expect(wire.status).toBe(200);
    const firstData = wire.text.indexOf('data:');
    expect(wire.text.slice(0, firstData)).toMatch(/^(: heartbeat\n\n){2,}$/);
    expect(wire.text.endsWith('data: [DONE]\n\n')).toBe(true);

    slow.release({ from: 'now on' });
    let text = '';
    for await (const c of await client.chat.completions.create({ ...ask, stream: true })) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('late but whole');
  });

  it('a failure after heartbeats went out is an SSE error event; before them, a JSON error status', async () => {
    const slowDown = held(fails(503, 'overloaded'));
    const clock = new VirtualClock();
    const late = await startGateway(pipelineFor({ vendors: { slowDown: await vendor(slowDown.handler) } }), { clock, server: { heartbeatMs: 20 } });
    const failLate = async <T>(work: Promise<T>): Promise<T> => {
      await expect.poll(slowDown.waiting, { timeout: 5_000, interval: 5 }).toBe(1);
      await clock.advance(20);
      slowDown.release();
      return work;
    };
    const wire = await failLate(raw(late.origin, '/v1/chat/completions', { body: chatBody({ stream: true }) }));
    expect(wire.status).toBe(200);
    expect(wire.text).toContain(': heartbeat');
    expect(wire.text).not.toContain('[DONE]');
    expect(lastEvent(wire.text)).toEqual({ error: { message: expect.stringContaining('all 1 attempt(s) failed'), type: 'server_error', param: null, code: 'all_candidates_failed' } });
    const read = (async () => {
      for await (const _ of await late.client.chat.completions.create({ ...ask, stream: true })) void _;
    })();
    await expect(failLate(read)).rejects.toMatchObject({ code: 'all_candidates_failed' });

    const fastDown = await vendor(fails(503, 'overloaded'));
    const early = await startGateway(pipelineFor({ vendors: { fastDown } }), { server: { heartbeatMs: 5_000 } });
    const err = await early.client.chat.completions.create({ ...ask, stream: true }).catch((e) => e);
    expect(err).toBeInstanceOf(APIError);
    expect(err.status).toBe(503);
    // Every candidate was tried and no vendor named a time: a final answer, not an invitation to retry.
    expect(err.headers.get('x-should-retry')).toBe('false');
    expect(err.headers.get('x-switchyard-attempts')).toBe('1');
  });

  it('a client that disconnects aborts the upstream attempt', async () => {
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => (upstreamClosed = r));
    const endless = await vendor((_req, res) => {
      res.on('close', upstreamClosed);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sseBody([chunk({ role: 'assistant', content: 'first' })], false));
      // ... and never another byte.
    });
    const { client, gateway } = await startGateway(pipelineFor({ vendors: { endless } }));
    const stream = await client.chat.completions.create({ ...ask, stream: true });
    for await (const c of stream) {
      expect(c.choices[0].delta.content).toBe('first');
      break; // the SDK aborts its request
    }
    await closed;
    await expect.poll(() => gateway.inFlight).toBe(0);
  });
});
