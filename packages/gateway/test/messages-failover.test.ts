/**
 * Messages requests on the pipeline's failover contract, against real failing vendors (the
 * simulate package's loopback fault server): a failure before the first byte is invisible to
 * the client; after it, the stream ends with Anthropic's `error` event (never `message_stop`),
 * or continues on a prefill-capable fallback as one whole answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import Anthropic from '@anthropic-ai/sdk';
import { startFaultServer, type FaultName, type FaultOptions, type FaultServer, type Vendor } from '@switchyard/simulate';
import { raw, stopAll, vendor } from './support/harness.js';
import { anthropicEvents, MODEL, pipelineOf, scriptedVendor, startMessagesGateway } from './support/messages.js';

const faults: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(faults.splice(0).map((f) => f.close()));
  await stopAll();
});

async function faulty(vendor: Vendor, scenario: FaultName, options: FaultOptions = {}): Promise<FaultServer> {
  const server = await startFaultServer({ vendor, scenario, options });
  faults.push(server);
  return server;
}

const ask = { model: MODEL, max_tokens: 300, messages: [{ role: 'user' as const, content: 'Tell me about foxes.' }] };

/** The `event:` names of an SSE text, in order. */
const eventNames = (text: string) => [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);

describe('a failure before the first byte fails over invisibly', () => {
  it('an overloaded Anthropic (529) → OpenAI answers, JSON and streaming', async () => {
    const claude = await faulty('anthropic', 'overloaded');
    const openai = await scriptedVendor('openai', () => ({ text: 'Foxes are small omnivores.' }));
    const { anthropic } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'openai', kind: 'openai', url: openai.url }]));

    const { data, response } = await anthropic.messages.create(ask).withResponse();
    expect(data.content).toEqual([{ type: 'text', text: 'Foxes are small omnivores.' }]);
    expect(response.headers.get('x-switchyard-endpoint')).toBe('openai');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');

    const streamed = await anthropic.messages.stream(ask).finalMessage();
    expect(streamed.content).toEqual([{ type: 'text', text: 'Foxes are small omnivores.' }]);
    expect(claude.requests.map((r) => r.outcome)).toEqual([529, 529]);
  });

  it('an overloaded OpenAI → Anthropic gets the client request as it was written, and its stream reaches the client as sent', async () => {
    const openai = await faulty('openai', 'overloaded');
    const claude = await scriptedVendor('anthropic', () => ({ text: 'Foxes are small omnivores.' }));
    const { origin } = await startMessagesGateway(pipelineOf([{ name: 'openai', kind: 'openai', url: openai.url }, { name: 'claude', kind: 'anthropic', url: claude.url }]));
    const body = { ...ask, stream: true, top_k: 40, system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }] };
    const res = await raw(origin, '/v1/messages', { body: JSON.stringify(body), headers: { 'anthropic-beta': 'prompt-caching-2024-07-31' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-switchyard-attempts')).toBe('2');
    expect(JSON.parse(claude.requests[0]!.body)).toEqual({ ...body, model: 'claude-sonnet-4-5-20250929' });
    expect(claude.requests[0]!.headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
    expect(eventNames(res.text)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  });

  it('a Gemini rate limit → DeepSeek (an OpenAI-compatible preset)', async () => {
    const gemini = await faulty('gemini', 'rate-limited');
    const deepseek = await scriptedVendor('deepseek', () => ({ thinking: 'Foxes: canids.', text: 'Foxes are canids.' }));
    const { anthropic } = await startMessagesGateway(pipelineOf([{ name: 'gemini', kind: 'gemini', url: gemini.url }, { name: 'deepseek', kind: 'deepseek', url: deepseek.url }]));
    const message = await anthropic.messages.stream(ask).finalMessage();
    expect(message.content).toEqual([{ type: 'thinking', thinking: 'Foxes: canids.', signature: '' }, { type: 'text', text: 'Foxes are canids.' }]);
    expect(gemini.requests).toHaveLength(1);
  });
});

describe('waiting for the first token', () => {
  it('SSE comment heartbeats keep the client waiting; the SDK reads past them', async () => {
    const slow = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      setTimeout(() => res.end(anthropicEvents({ text: 'Finally.' })), 120);
    });
    const { anthropic, origin } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: slow.url }]), { server: { heartbeatMs: 20 } });
    const res = await raw(origin, '/v1/messages', { body: JSON.stringify({ ...ask, stream: true }) });
    expect(res.text.startsWith(': heartbeat\n\n')).toBe(true);
    expect((await anthropic.messages.stream(ask).finalMessage()).content).toEqual([{ type: 'text', text: 'Finally.' }]);
  });
});

describe('a failure after the first byte', () => {
  it('ends the stream with an error event, never message_stop, when no fallback can continue', async () => {
    const claude = await faulty('anthropic', 'stream-cut', { afterTokens: 3 });
    const openai = await scriptedVendor('openai', () => ({ text: 'never used' }));
    const { anthropic, origin } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'openai', kind: 'openai', url: openai.url }]));

    const res = await raw(origin, '/v1/messages', { body: JSON.stringify({ ...ask, stream: true }) });
    expect(res.status).toBe(200);
    const names = eventNames(res.text);
    expect(names[0]).toBe('message_start');
    expect(names.at(-1)).toBe('error');
    expect(names).not.toContain('message_stop');
    const last = JSON.parse(res.text.slice(res.text.lastIndexOf('data: ') + 6));
    // The vendor died mid-chunk: a lost connection is Anthropic's api_error, in plain words (the transport's are for the logs).
    expect(last).toEqual({ type: 'error', error: { type: 'api_error', message: "the vendor's connection closed before the answer was complete" } });

    // The SDK surfaces it as an error, not as a short success.
    const error = await anthropic.messages
      .stream(ask)
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    // No fallback was asked for the rest: it cannot take a prefill.
    expect(openai.requests).toHaveLength(0);
  });

  it('continues on a prefill-capable fallback: Anthropic forwarded, then DeepSeek encoded, one message with one text block', async () => {
    const claude = await faulty('anthropic', 'stream-cut', { afterTokens: 3 });
    const deepseek = await scriptedVendor('deepseek', () => ({ text: 'jumps over the lazy dog.' }));
    const { anthropic, origin } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'deepseek', kind: 'deepseek', url: deepseek.url }]));

    const res = await raw(origin, '/v1/messages', { body: JSON.stringify({ ...ask, stream: true }) });
    expect(res.headers.get('x-switchyard-endpoint')).toBe('claude');
    const names = eventNames(res.text);
    // One text block: Anthropic opened it (index 0), the continuation's deltas go on in it.
    expect(names.filter((n) => n === 'content_block_start')).toHaveLength(1);
    expect(names.filter((n) => n === 'message_start')).toHaveLength(1);
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    const indexes = [...res.text.matchAll(/"index":(\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(indexes)).toEqual(new Set([0]));
    // DeepSeek got the partial answer as an assistant prefill.
    const prefill = JSON.parse(deepseek.requests[0]!.body).messages.at(-1);
    expect(prefill).toEqual({ role: 'assistant', content: 'The quick brown ' });

    const message = await anthropic.messages.stream(ask).finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'The quick brown jumps over the lazy dog.' }]);
    expect(message.stop_reason).toBe('end_turn');
  });
});
