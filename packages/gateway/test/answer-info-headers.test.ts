import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { answers, fails, startGateway, stopAll, VENDOR_KEY, vendor } from './support/harness.js';
import OpenAI from 'openai';
import { modelLimits } from '@switchyard/plugin-model-limits';
import { infoHeaders } from '../src/http-reply.js';

afterEach(stopAll);

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('x-switchyard-fallback: a backup model answered', () => {
  it('is sent on answers and streams from a backup, not from a primary', async () => {
    const primary = await vendor(fails(503, 'overloaded'));
    const backup = await vendor(answers(['from backup']));
    const pipeline = createPipeline({
      endpoints: [
        { name: 'primary', provider: 'openai', baseUrl: primary.url, apiKey: VENDOR_KEY },
        { name: 'backup', provider: 'openai', baseUrl: backup.url, apiKey: VENDOR_KEY },
      ],
      models: { chat: [{ endpoint: 'primary', model: 'gpt-4o' }, { endpoint: 'backup', model: 'gpt-4o-mini' }], direct: [{ endpoint: 'backup', model: 'gpt-4o-mini' }] },
      providers: [openaiProvider],
    });
    const { client } = await startGateway(pipeline);
    const { data, response } = await client.chat.completions.create(ask).withResponse();
    expect(data.choices[0].message.content).toBe('from backup');
    expect(response.headers.get('x-switchyard-fallback')).toBe('true');
    const streamed = await client.chat.completions.create({ ...ask, stream: true }).withResponse();
    expect(streamed.response.headers.get('x-switchyard-fallback')).toBe('true');
    for await (const _ of streamed.data) void _;
    // The same deployment as the primary of another model is no fallback there.
    const direct = await client.chat.completions.create({ ...ask, model: 'direct' }).withResponse();
    expect(direct.response.headers.get('x-switchyard-fallback')).toBeNull();
  });

  it('every dialect shares the header set: queued and truncated too', () => {
    expect(infoHeaders({ endpoint: 'b', attempts: 2, fallback: 'b/m', queued: 'req_1', truncated: { droppedMessages: 3 } })).toEqual({
      'x-switchyard-endpoint': 'b',
      'x-switchyard-attempts': '2',
      'x-switchyard-fallback': 'true',
      'x-switchyard-queued': 'req_1',
      'x-switchyard-truncated': '3',
    });
  });
});

describe('model limits through the gateway', () => {
  it('a value no deployment accepts is a 400 naming the field; a shortened prompt says so in x-switchyard-truncated', async () => {
    const up = await vendor(answers(['fine']));
    const pipeline = createPipeline({
      endpoints: [{ name: 'up', provider: 'openai', baseUrl: up.url, apiKey: VENDOR_KEY }],
      models: { chat: [{ endpoint: 'up', model: 'gpt-4o-mini', contextWindow: 1_000, limits: { maxOutputTokens: 4096 } }] },
      providers: [openaiProvider],
      plugins: [modelLimits({ truncate: true, reserveOutputTokens: 100 })],
    });
    const { client } = await startGateway(pipeline);
    const err = await client.chat.completions.create({ ...ask, max_tokens: 10_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ param: 'max_tokens', message: expect.stringContaining('max_tokens: 10000 is above the output limit of 4096') });
    expect(up.requests).toHaveLength(0);

    const history = Array.from({ length: 12 }, (_, i) => [
      { role: 'user' as const, content: `q${i} ${'lorem '.repeat(50)}` },
      { role: 'assistant' as const, content: `a${i} ${'ipsum '.repeat(50)}` },
    ]).flat();
    const { response } = await client.chat.completions.create({ model: 'chat', messages: [...history, { role: 'user', content: 'now?' }] }).withResponse();
    const dropped = Number(response.headers.get('x-switchyard-truncated'));
    expect(dropped).toBeGreaterThan(0);
    expect(JSON.parse(up.requests[0]!.body).messages).toHaveLength(25 - dropped);
  });
});
