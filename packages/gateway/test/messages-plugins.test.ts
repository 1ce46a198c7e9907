/**
 * Messages requests with policy plugins that answer without a vendor: a cache hit is encoded
 * from the stored unified answer (no vendor text to forward), JSON and streaming alike.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cache } from '@switchyard/plugin-cache';
import { raw, stopAll } from './support/harness.js';
import { MODEL, pipelineOf, scriptedVendor, startMessagesGateway } from './support/messages.js';

afterEach(stopAll);

describe('a cached answer to a Messages request', () => {
  it.each(['anthropic', 'openai'] as const)('first answered by %s, then served from the cache as a Message and as a Messages stream', async (kind) => {
    const upstream = await scriptedVendor(kind, () => ({ text: 'Cached words, same as before.' }));
    const { anthropic, origin } = await startMessagesGateway(pipelineOf([{ name: kind, kind, url: upstream.url }], { plugins: [cache({ ttlMs: 60_000 })] }));
    const ask = { model: MODEL, max_tokens: 100, messages: [{ role: 'user' as const, content: 'Say something.' }] };
    const first = await anthropic.messages.create(ask);
    const { data: second, response } = await anthropic.messages.create(ask).withResponse();
    expect(second.content).toEqual(first.content);
    expect(second.stop_reason).toBe('end_turn');
    expect(response.headers.get('x-switchyard-attempts')).toBe('0');

    const streamed = await anthropic.messages.stream(ask).finalMessage();
    expect(streamed.content).toEqual([{ type: 'text', text: 'Cached words, same as before.' }]);
    const wire = await raw(origin, '/v1/messages', { body: JSON.stringify({ ...ask, stream: true }) });
    expect([...wire.text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1])).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(upstream.requests).toHaveLength(1);
  });
});
