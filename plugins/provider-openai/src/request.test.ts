import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '@switchyard/core';
import { openaiProvider } from './index.js';
import { closeAll, reframeChunks, replay, SECRET_KEY, streamParts } from './test-support/harness.js';

afterEach(closeAll);

const completion = JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o-mini-2024-07-18', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] });

const request: ChatRequest = {
  model: 'chat',
  messages: [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    { role: 'assistant', content: null, reasoning_content: 'thinking', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }], providerMetadata: { openai: { x: 1 } } },
    { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
  ],
  tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object', properties: {} } } }],
  tool_choice: 'auto',
  temperature: 0.3,
  max_completion_tokens: 100,
  response_format: { type: 'json_object' },
  prediction: { type: 'content', content: 'a cat' },
  stream: true,
  stream_options: { include_usage: true },
  switchyard: { tier: 'fast', tags: { team: 'a' }, cache: false },
};

const upstreamMessages = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: 'a cat' },
];

describe('what openai receives', () => {
  it('non-stream: our fields stripped, unknown OpenAI fields kept, no stream fields, bearer auth', async () => {
    const { vendor, pipeline } = await replay(openaiProvider, { body: completion }, { headers: { 'OpenAI-Project': 'proj_1' } }, 'gpt-4o-mini');
    await pipeline.chat(request);
    const sent = vendor.requests[0];
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers).toMatchObject({ authorization: `Bearer ${SECRET_KEY}`, 'content-type': 'application/json', accept: 'application/json', 'openai-project': 'proj_1' });
    expect(JSON.parse(sent.body)).toEqual({
      model: 'gpt-4o-mini',
      messages: upstreamMessages,
      tools: request.tools,
      tool_choice: 'auto',
      temperature: 0.3,
      max_completion_tokens: 100,
      response_format: { type: 'json_object' },
      prediction: { type: 'content', content: 'a cat' },
    });
  });

  it('stream: stream true and include_usage added; an explicit include_usage:false is overridden (issue 34 row 1: every stream is billed at the vendor\'s count)', async () => {
    const { vendor, pipeline } = await replay(openaiProvider, { body: reframeChunks('groq-tool-call.chunks.txt') }, {}, 'gpt-4o-mini');
    await streamParts(pipeline, { stream_options: undefined, temperature: 0 });
    expect(vendor.requests[0].headers.accept).toBe('text/event-stream');
    expect(JSON.parse(vendor.requests[0].body)).toEqual({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], temperature: 0, stream: true, stream_options: { include_usage: true } });
    await streamParts(pipeline, { stream_options: { include_usage: false } });
    expect(JSON.parse(vendor.requests[1].body).stream_options).toEqual({ include_usage: true });
  });
});
