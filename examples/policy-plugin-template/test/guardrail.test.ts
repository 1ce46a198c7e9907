/** The guardrail through a real pipeline: an OpenAI-compatible upstream from the testkit's sample server. */
import { createPipeline, httpStatusOf, isSwitchyardError } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { startSampleServer, type SampleServer } from '@switchyard/testkit';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { guardrail } from '../src/index.js';

let upstream: SampleServer;
beforeEach(async () => {
  upstream = await startSampleServer();
  upstream.behave({ type: 'json', sample: { status: 200, body: { id: 'c1', object: 'chat.completion', created: 0, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'fine' }, finish_reason: 'stop' }] } } });
});
afterEach(() => upstream.close());

const pipelineWith = (pattern: string) =>
  createPipeline({
    endpoints: [{ name: 'openai', provider: 'openai', baseUrl: upstream.url, apiKey: 'sk-test' }],
    models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }] },
    plugins: [...openai, guardrail({ pattern })],
  });

it('refuses a matching request with its own code and a 403, emits its event, and never calls the vendor', async () => {
  const pipeline = pipelineWith('password');
  const blocked: string[] = [];
  pipeline.events.on('guardrail:blocked', (e) => blocked.push(e.pattern));
  const error = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'What is the admin PASSWORD?' }] }).catch((e: unknown) => e);
  expect(isSwitchyardError(error) && error.code).toBe('ACME_ERR_GUARDRAIL_BLOCKED');
  expect(isSwitchyardError(error) && httpStatusOf(error)).toBe(403);
  expect(blocked).toEqual(['password']);
  expect(upstream.requests).toHaveLength(0);
  await pipeline.close();
});

it('lets other requests through, with its defaults filled in', async () => {
  const pipeline = pipelineWith('password');
  const answer = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'Hello' }] });
  expect(answer.choices[0].message.content).toBe('fine');
  expect(upstream.requests).toHaveLength(1);
  expect(pipeline.plugins[0]?.options).toEqual({ pattern: 'password', flags: 'i', message: 'this request is not allowed' });
  await pipeline.close();
});
