/**
 * Chat Completions streams pass through: a Chat Completions vendor's chunks reach a Chat
 * Completions client as the vendor wrote them (fields the unified parts do not model survive),
 * chunks the codec had to normalise are encoded, and the gateway still owns the commit point,
 * the usage chunk the client did not ask for, the closing `[DONE]` and the error event.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineFor, raw, startGateway, stopAll, vendor, chatBody } from './support/harness.js';

afterEach(stopAll);

const base = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1700000000, model: 'upstream-model', system_fingerprint: 'fp_1', service_tier: 'default' };
const event = (fields: Record<string, unknown>) => `data: ${JSON.stringify({ ...base, ...fields })}\n\n`;
const choice = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => event({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finish, ...extra }] });

const role = choice({ role: 'assistant', content: '', refusal: null });
const hello = choice({ content: 'Hel' }, null, { obfuscation: 'x1' });
const lo = choice({ content: 'lo' });
const stop = choice({}, 'stop');
const usage = event({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7, prompt_tokens_details: { cached_tokens: 0 } } });

function streams(events: string[], { cut = false } = {}) {
  return vendor((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (cut) {
      res.write(events.join(''));
      setTimeout(() => res.destroy(), 20);
      return;
    }
    res.end(events.join('') + 'data: [DONE]\n\n');
  });
}

describe('a Chat Completions stream from a Chat Completions vendor', () => {
  it("reaches the client byte for byte, without the usage chunk it did not ask for, closed by the gateway's [DONE]", async () => {
    const primary = await streams([role, hello, lo, stop, usage]);
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }));
    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(wire.status).toBe(200);
    expect(wire.text).toBe(role + hello + lo + stop + 'data: [DONE]\n\n');
  });

  it("forwards the vendor's own usage chunk when the client asked for usage, and no second one", async () => {
    const primary = await streams([role, hello, lo, stop, usage]);
    const { origin, client } = await startGateway(pipelineFor({ vendors: { primary } }));
    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true, stream_options: { include_usage: true } }) });
    expect(wire.text).toBe(role + hello + lo + stop + usage + 'data: [DONE]\n\n');
    // The official SDK reads it as one stream with its usage.
    const stream = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let seenUsage: unknown;
    for await (const c of stream) {
      text += c.choices[0]?.delta.content ?? '';
      if (c.usage) seenUsage = c.usage;
    }
    expect(text).toBe('Hello');
    expect(seenUsage).toMatchObject({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
  });

  it('encodes a chunk the codec had to normalise (a tool call without its id) and passes the rest through', async () => {
    const firstCall = choice({ tool_calls: [{ index: 0, type: 'function', function: { name: 'lookup', arguments: '' } }] });
    const args = choice({ tool_calls: [{ index: 0, function: { arguments: '{"q":"x"}' } }] });
    const primary = await streams([role, firstCall, args, choice({}, 'tool_calls')]);
    const { origin, client } = await startGateway(pipelineFor({ vendors: { primary } }));
    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    const events = wire.text.split('\n\n').filter(Boolean);
    expect(events[0] + '\n\n').toBe(role);
    // The id-less call was encoded with the codec's synthetic id; its arguments chunk is the vendor's.
    expect(JSON.parse(events[1].slice(6)).choices[0].delta.tool_calls[0]).toMatchObject({ index: 0, id: expect.stringMatching(/\S/), type: 'function', function: { name: 'lookup' } });
    expect(events[2] + '\n\n').toBe(args);
    const final = await client.chat.completions.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }] }).finalChatCompletion();
    expect(final.choices[0].message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } });
  });

  it('ends with an error event and no [DONE] when the vendor cuts the stream after the commit point', async () => {
    const primary = await streams([role, hello], { cut: true });
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }));
    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(wire.text.startsWith(role + hello)).toBe(true);
    expect(wire.text).not.toContain('[DONE]');
    const last = wire.text.split('\n\n').filter(Boolean).at(-1)!;
    expect(JSON.parse(last.slice(6))).toMatchObject({ error: { type: 'server_error', code: 'upstream_connection_lost', message: "the vendor's connection closed before the answer was complete" } });
  });

  it('fails over invisibly before the first token: the fallback vendor\'s chunks pass through', async () => {
    const primary = await vendor((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"busy","type":"server_error","code":null}}');
    });
    const secondary = await streams([role, hello, lo, stop]);
    const { origin } = await startGateway(pipelineFor({ vendors: { primary, secondary } }));
    const wire = await raw(origin, '/v1/chat/completions', { body: chatBody({ stream: true }) });
    expect(wire.headers.get('x-switchyard-endpoint')).toBe('secondary');
    expect(wire.text).toBe(role + hello + lo + stop + 'data: [DONE]\n\n');
  });
});

describe('a Chat Completions request to a Chat Completions vendor', () => {
  it('reaches the vendor as the client wrote it, with only the upstream model spliced in', async () => {
    const primary = await streams([role, hello, lo, stop]);
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }));
    const text = '{ "messages": [ {"role": "user", "content": "hi"} ], "model": "chat", "stream": true, "seed": 7 }';
    await raw(origin, '/v1/chat/completions', { body: text });
    expect(primary.requests[0]!.body).toBe('{ "messages": [ {"role": "user", "content": "hi"} ], "model":"primary-model", "stream": true, "seed": 7 ,"stream_options":{"include_usage":true}}');
  });
});
