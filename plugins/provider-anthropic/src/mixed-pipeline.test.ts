import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { anthropicProvider } from './index.js';
import { fixtureJson, fixtureText, json, reframe, startLoopback, type Loopback } from '../test/support.js';

let pipeline: Pipeline | undefined;
const servers: Loopback[] = [];
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('Anthropic behind another vendor', () => {
  it('answers in the unified shape with its own model and usage when the primary returns 503', async () => {
    const primary = await startLoopback(json(503, { error: { message: 'upstream unavailable' } }));
    const claude = await startLoopback((_req, res, body) => {
      if (JSON.parse(body).stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(reframe(fixtureText('anthropic-text.chunks.txt')));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(fixtureJson('anthropic-text.json')));
      }
    });
    servers.push(primary, claude);
    pipeline = createPipeline({
      endpoints: [
        { name: 'primary', provider: 'test', baseUrl: primary.url },
        { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: 'sk-ant-mixed-0123456789' },
      ],
      models: { chat: [{ endpoint: 'primary', model: 'gpt-x' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
      providers: [testProvider, anthropicProvider],
    });
    const ask = { model: 'chat', messages: [{ role: 'system' as const, content: 'Be kind.' }, { role: 'user' as const, content: 'How are you?' }] };

    const r = await pipeline.chat(ask);
    expect(r).toMatchObject({
      object: 'chat.completion',
      model: 'claude-sonnet-4-5-20250929',
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 12, completion_tokens: 29, total_tokens: 41 },
      switchyard: { endpoint: 'claude', provider: 'anthropic', attempts: 2 },
    });

    const s = await pipeline.stream(ask);
    const collected = await s.collect();
    expect(collected).toMatchObject({ model: 'claude-sonnet-4-5-20250929', choices: [{ finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42 } });
    expect(collected.switchyard).toMatchObject({ endpoint: 'claude' });
    expect(JSON.parse(claude.requests[0]!.body)).toMatchObject({ model: 'claude-sonnet-4-5', system: 'Be kind.', messages: [{ role: 'user', content: [{ type: 'text', text: 'How are you?' }] }] });
  });
});
