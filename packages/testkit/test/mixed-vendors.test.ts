/**
 * Failover across vendors is invisible: OpenAI primary failing with 503, Anthropic secondary,
 * Gemini tertiary; the caller gets the secondary's answer in the OpenAI shape, with the model
 * that answered and its usage, streamed or not. Real codecs, real wire formats, undici path.
 */
import { describe, expect, it } from 'vitest';
import { createPipeline, type StreamPart } from '@switchyard/core';
import { createMswDispatcher, healthyText, vendorFaults } from '@switchyard/chaos';
import { providers as openai } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { providers as gemini } from '@switchyard/provider-gemini';

function mixedPipeline() {
  const primary = vendorFaults('openai', { baseUrl: 'http://openai.test/v1' });
  const secondary = vendorFaults('anthropic', { baseUrl: 'http://anthropic.test/v1' });
  const tertiary = vendorFaults('gemini', { baseUrl: 'http://gemini.test/v1beta' });
  const down = primary.unavailable();
  const claude = secondary.ok({ tokens: 10 });
  const flash = tertiary.ok({ tokens: 10 });
  const pipeline = createPipeline({
    dispatcher: createMswDispatcher([down, claude, flash]),
    endpoints: [
      { name: 'openai', provider: 'openai', baseUrl: 'http://openai.test/v1', apiKey: 'sk-openai-test' },
      { name: 'anthropic', provider: 'anthropic', baseUrl: 'http://anthropic.test/v1', apiKey: 'sk-ant-test' },
      { name: 'gemini', provider: 'gemini', baseUrl: 'http://gemini.test/v1beta', apiKey: 'gemini-test' },
    ],
    models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }, { endpoint: 'anthropic', model: 'claude-sonnet-4-5' }, { endpoint: 'gemini', model: 'gemini-2.5-flash' }] },
    plugins: [...openai, ...anthropic, ...gemini],
  });
  return { pipeline, down, claude, flash };
}

const ask = { model: 'chat', messages: [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'Hello?' }] };

describe('mixed vendors behind one logical model', () => {
  it('a 503 from OpenAI fails over to Anthropic; the answer is OpenAI-shaped with the right model and usage', async () => {
    const { pipeline, down, claude, flash } = mixedPipeline();
    const r = await pipeline.chat(ask);
    expect(r.object).toBe('chat.completion');
    expect(r.model).toBe('claude-sonnet-4-5');
    expect(r.choices[0]).toMatchObject({ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: healthyText(10) } });
    expect(r.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(r.usage?.completion_tokens).toBeGreaterThan(0);
    expect(r.usage?.total_tokens).toBe(r.usage!.prompt_tokens + r.usage!.completion_tokens);
    expect(r.switchyard).toMatchObject({ endpoint: 'anthropic', attempts: 2 });
    expect([down.fault.seen, claude.fault.seen, flash.fault.seen]).toEqual([1, 1, 0]);
    await pipeline.close();
  });

  it('the same for a stream: parts from Anthropic, collected into the OpenAI shape', async () => {
    const { pipeline } = mixedPipeline();
    const stream = await pipeline.stream(ask);
    expect(stream.info).toMatchObject({ endpoint: 'anthropic' });
    const parts: StreamPart[] = [];
    for await (const p of stream) parts.push(p);
    expect(parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('')).toBe(healthyText(10));
    const finish = parts.find((p) => p.type === 'finish');
    expect(finish).toMatchObject({ finishReason: 'stop' });
    const usage = finish?.type === 'finish' ? finish.usage : undefined;
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(parts.find((p) => p.type === 'response-metadata')).toMatchObject({ model: 'claude-sonnet-4-5' });
    await pipeline.close();
  });

  it('when Anthropic is overloaded too, Gemini answers in the same shape', async () => {
    const primary = vendorFaults('openai', { baseUrl: 'http://openai.test/v1' });
    const secondary = vendorFaults('anthropic', { baseUrl: 'http://anthropic.test/v1' });
    const tertiary = vendorFaults('gemini', { baseUrl: 'http://gemini.test/v1beta' });
    const pipeline = createPipeline({
      dispatcher: createMswDispatcher([primary.unavailable(), secondary.overloaded(), tertiary.ok({ tokens: 6 })]),
      endpoints: [
        { name: 'openai', provider: 'openai', baseUrl: 'http://openai.test/v1', apiKey: 'k1' },
        { name: 'anthropic', provider: 'anthropic', baseUrl: 'http://anthropic.test/v1', apiKey: 'k2' },
        { name: 'gemini', provider: 'gemini', baseUrl: 'http://gemini.test/v1beta', apiKey: 'k3' },
      ],
      models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }, { endpoint: 'anthropic', model: 'claude-sonnet-4-5' }, { endpoint: 'gemini', model: 'gemini-2.5-flash' }] },
      plugins: [...openai, ...anthropic, ...gemini],
    });
    const r = await (await pipeline.stream(ask)).collect();
    expect(r.model).toBe('gemini-2.5-flash');
    expect(r.choices[0].message.content).toBe(healthyText(6));
    expect(r.usage?.total_tokens).toBeGreaterThan(0);
    await pipeline.close();
  });
});
