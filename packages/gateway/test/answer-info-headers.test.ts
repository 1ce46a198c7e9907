import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { answers, fails, startGateway, stopAll, VENDOR_KEY, vendor } from './support/harness.js';
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
