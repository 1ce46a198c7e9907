import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type ChatMessage, type Pipeline } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import providers from './index.js';

const servers: Loopback[] = [];
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const answer = { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'read it' }, finish_reason: 'stop' }] };

/** `chat` served by these providers in order, each on its own loopback server. */
async function pipelineOf(deployments: { provider: string; capabilities?: string[] }[]): Promise<Pipeline> {
  const started = await Promise.all(
    deployments.map(() =>
      startLoopback((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      }),
    ),
  );
  servers.push(...started);
  pipeline = createPipeline({
    endpoints: deployments.map((d, i) => ({ name: `${d.provider}-${i}`, provider: d.provider, baseUrl: started[i]!.url, apiKey: 'sk-test-0123456789' })),
    models: { chat: deployments.map((d, i) => ({ endpoint: `${d.provider}-${i}`, model: 'm', ...(d.capabilities ? { capabilities: d.capabilities } : {}) })) },
    providers,
  });
  return pipeline;
}

const pdf: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'Summarise' }, { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } }] };
const word: ChatMessage = { role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/msword;base64,AAAA' } }] };

describe('what a Chat Completions vendor cannot express is refused before any call', () => {
  it('a PDF skips the vendors without document input and goes to OpenAI as the file part it is', async () => {
    const p = await pipelineOf([{ provider: 'deepseek' }, { provider: 'openai-compatible' }, { provider: 'openai' }]);
    const res = await p.chat({ model: 'chat', messages: [pdf] });
    expect(res.switchyard.endpoint).toBe('openai-2');
    expect(servers[0]!.requests).toHaveLength(0);
    expect(servers[1]!.requests).toHaveLength(0);
    expect(JSON.parse(servers[2]!.requests[0]!.body).messages[0].content[1]).toEqual({ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'a.pdf' } });
  });

  it('with no target left, a 400 names the field and every target, and nothing reaches a vendor', async () => {
    const p = await pipelineOf([{ provider: 'deepseek' }, { provider: 'openai' }]);
    const error = await p.chat({ model: 'chat', messages: [{ role: 'user', content: 'x' }, word] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ kind: 'invalid-request', code: 'SWITCHYARD_ERR_UNEXPRESSIBLE', status: 400, path: 'messages[1].content[0]' });
    expect((error as Error).message).toMatch(/^messages\[1\]\.content\[0\]: a document \(deepseek has no document input\); no deployment of model "chat" can take it \(deepseek-0\/m, openai-1\/m\)$/);
    expect(servers.every((s) => s.requests.length === 0)).toBe(true);
  });

  it('OpenAI reads PDFs only; a deployment declaring `documents` reads them on any compatible server', async () => {
    const p = await pipelineOf([{ provider: 'openai' }]);
    const error = await p.chat({ model: 'chat', messages: [word] }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('messages[0].content[0].file: a application/msword document (openai reads application/pdf documents only)');
    await pipeline!.close();
    const q = await pipelineOf([{ provider: 'openai-compatible', capabilities: ['documents'] }]);
    expect((await q.chat({ model: 'chat', messages: [pdf] })).choices[0]!.message.content).toBe('read it');
  });

  it('media in a tool result is refused: Chat Completions tool messages are text', async () => {
    const p = await pipelineOf([{ provider: 'openai' }]);
    const messages: ChatMessage[] = [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'here' }, { type: 'image_url', image_url: { url: 'https://example.com/s.png' } }] },
    ];
    const error = await p.chat({ model: 'chat', messages }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'SWITCHYARD_ERR_UNEXPRESSIBLE', path: 'messages[2].content[1]' });
    expect((error as Error).message).toContain('a "image_url" part in a tool result (openai takes text tool results only)');
    // Text-only tool results go through.
    messages[2] = { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'here' }] };
    expect((await p.chat({ model: 'chat', messages })).choices[0]!.message.content).toBe('read it');
  });
});
