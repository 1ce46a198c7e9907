import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, type Pipeline } from '@switchyard/core';
import { openaiProvider } from '../../provider-openai/src/index.js';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { degrade, type Level } from '../src/index.js';

let server: Loopback | undefined;
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await server?.close();
  server = pipeline = undefined;
});

type Refusal = 'overloaded' | 'output-cap' | 'context';

/** One OpenAI-shaped vendor that refuses any output limit above `cap` (or none at all), the way `refusal` says. */
async function vendor(cap: number, refusal: Refusal, levels: Level[]) {
  const sent: { max_tokens?: number; max_completion_tokens?: number }[] = [];
  server = await startLoopback((_req, res, body) => {
    const request = JSON.parse(body) as { max_tokens?: number; max_completion_tokens?: number };
    sent.push(request);
    const limit = request.max_completion_tokens ?? request.max_tokens;
    if (limit !== undefined && limit <= cap) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(completion(`short answer in ${limit}`, 'gpt-4o')));
      return;
    }
    const reply = {
      overloaded: [503, { message: 'The server is overloaded', type: 'server_error', param: null, code: null }],
      'output-cap': [400, { message: `max_tokens is too large: ${limit}. This model supports at most ${cap} completion tokens, whereas you provided ${limit}.`, type: 'invalid_request_error', param: 'max_tokens', code: 'invalid_value' }],
      context: [400, { message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' }],
    }[refusal];
    res.writeHead(reply[0] as number, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: reply[1] }));
  });
  pipeline = createPipeline({
    endpoints: [{ name: 'openai', provider: 'openai', baseUrl: server.url, apiKey: 'sk-test-0123456789abcdef' }],
    models: { chat: [{ endpoint: 'openai', model: 'gpt-4o' }] },
    providers: [openaiProvider],
    plugins: [degrade({ levels })],
  });
  return { pipeline, sent };
}

const ask = (extra: Record<string, unknown> = {}) => ({ model: 'chat', messages: [{ role: 'user' as const, content: 'write an essay' }], ...extra });

describe('the max-tokens level', () => {
  it('retries the candidates that failed with the smaller output limit', async () => {
    const { pipeline: p, sent } = await vendor(256, 'overloaded', [{ type: 'max-tokens', maxTokens: 256 }]);
    const answer = await p.chat(ask({ max_tokens: 4096 }));
    expect(answer.choices[0].message.content).toBe('short answer in 256');
    expect(answer.switchyard).toMatchObject({ degraded: 'max-tokens:256', attempts: 2, fallback: 'openai/gpt-4o' });
    expect(sent.map((r) => r.max_tokens)).toEqual([4096, 256]);
  });

  it('sets a limit on a request without one, and lowers max_completion_tokens when that is the field used', async () => {
    const { pipeline: p, sent } = await vendor(100, 'overloaded', [{ type: 'max-tokens', maxTokens: 100 }]);
    expect((await p.chat(ask())).switchyard.degraded).toBe('max-tokens:100');
    expect(sent[1]?.max_tokens).toBe(100);
    await p.chat(ask({ max_completion_tokens: 2000 }));
    expect(sent[3]).toMatchObject({ max_completion_tokens: 100 });
    expect(sent[3]?.max_tokens).toBeUndefined();
  });

  it('fixes an output limit the vendor refused (a request failure no other level may hide)', async () => {
    const levels: Level[] = [{ type: 'canned', text: 'busy' }, { type: 'max-tokens', maxTokens: 512 }];
    const { pipeline: p, sent } = await vendor(512, 'output-cap', levels);
    const answer = await p.chat(ask({ max_tokens: 4096 }));
    expect(answer.choices[0].message.content).toBe('short answer in 512');
    expect(answer.switchyard.degraded).toBe('max-tokens:512');
    expect(sent).toHaveLength(2);
  });

  it('fixes a prompt + output limit over the context window the same way', async () => {
    const { pipeline: p } = await vendor(1000, 'context', [{ type: 'max-tokens', maxTokens: 1000 }]);
    expect((await p.chat(ask({ max_tokens: 8000 }))).switchyard.degraded).toBe('max-tokens:1000');
  });

  it('is skipped when the limit is that small already, and the error says so', async () => {
    const { pipeline: p, sent } = await vendor(10, 'overloaded', [{ type: 'max-tokens', maxTokens: 256 }]);
    const err = await p.chat(ask({ max_tokens: 200 })).catch((e) => e);
    expect(err.kind).toBe('all-candidates-failed');
    expect(err.message).toContain('max-tokens:256 (the output limit is 256 or less already)');
    expect(sent).toHaveLength(1);
  });

  it('still never degrades other request failures', async () => {
    const { pipeline: p } = await vendor(10, 'output-cap', [{ type: 'canned', text: 'busy' }]);
    await expect(p.chat(ask({ max_tokens: 100 }))).rejects.toMatchObject({ kind: 'bad-request', status: 400 });
  });
});
