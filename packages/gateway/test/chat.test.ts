import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, STAGE } from '@switchyard/core';
import { answers, chatBody, fails, GATEWAY_KEY, pipelineFor, raw, startGateway, stopAll, VENDOR_KEY, vendor } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';
import { LOGGER_FLAT_LINE, LOGGER_MASKER, SecretMasker, type LogFields } from '../src/index.js';

afterEach(stopAll);

describe('non-streaming chat through the OpenAI SDK', () => {
  it('answers a chat.completion and names who answered', async () => {
    const primary = await vendor(answers(['Hello', ' there']));
    const { client } = await startGateway(pipelineFor({ vendors: { primary } }));
    const { data, response } = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.choices[0].message).toMatchObject({ role: 'assistant', content: 'Hello there' });
    expect(data.choices[0].finish_reason).toBe('stop');
    expect(data.model).toBe('upstream-model');
    expect(data.usage?.total_tokens).toBe(5);
    expect(response.headers.get('x-switchyard-endpoint')).toBe('primary');
    expect(response.headers.get('x-switchyard-attempts')).toBe('1');
    expect(response.headers.get('x-switchyard-degraded')).toBeNull();
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    expect(data).not.toHaveProperty('switchyard');
  });

  it('fails over to the next endpoint and reports both attempts', async () => {
    const down = await vendor(fails(503, 'overloaded'));
    const backup = await vendor(answers(['from backup']));
    const { client } = await startGateway(pipelineFor({ vendors: { down, backup } }));
    const { data, response } = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.choices[0].message.content).toBe('from backup');
    expect(response.headers.get('x-switchyard-endpoint')).toBe('backup');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
    expect(down.requests).toHaveLength(1);
  });

  it('sends the vendor key upstream, never the gateway key, and forwards request id and traceparent', async () => {
    const primary = await vendor(answers(['ok']));
    const { client } = await startGateway(pipelineFor({ vendors: { primary } }));
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { response } = await client.chat.completions
      .create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-request-id': 'client-req-42', traceparent } })
      .withResponse();
    expect(response.headers.get('x-request-id')).toBe('client-req-42');
    const seen = primary.requests[0].headers;
    expect(seen.authorization).toBe(`Bearer ${VENDOR_KEY}`);
    expect(JSON.stringify(seen)).not.toContain(GATEWAY_KEY);
    expect(seen.traceparent).toBe(traceparent);
  });

  it('forwards an OpenAI-shaped vendor answer as the vendor wrote it (fields Switchyard does not model survive)', async () => {
    const text = `{"id":"chatcmpl-9","object":"chat.completion","created":1733000000,"model":"gpt-x","service_tier":"default",
  "choices":[{"index":0,"message":{"role":"assistant","content":"hi","annotations":[]},"logprobs":{"content":[{"token":"hi","logprob":-0.1}]},"finish_reason":"stop"}],
  "usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4,"prompt_tokens_details":{"cached_tokens":0}}}`;
    const primary = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    });
    const { origin, client } = await startGateway(pipelineFor({ vendors: { primary } }));
    const res = await raw(origin, '/v1/chat/completions', { body: chatBody() });
    expect(res.status).toBe(200);
    expect(res.text).toBe(text);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-switchyard-endpoint')).toBe('primary');
    const data = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], logprobs: true });
    expect(data.choices[0].logprobs?.content?.[0].token).toBe('hi');
    expect((data as unknown as { service_tier: string }).service_tier).toBe('default');
  });

  it('re-encodes a vendor answer outside the OpenAI vocabulary (finish reason, tool call without id, usage without total)', async () => {
    const bodies = [
      { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'eos' }] },
      { id: 'c2', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: 'tool_calls' }] },
      { id: 'c3', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }], usage: { prompt_tokens: 2, completion_tokens: 1 } },
    ];
    let next = 0;
    const primary = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(bodies[next++]));
    });
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }));
    const first = await raw(origin, '/v1/chat/completions', { body: chatBody() });
    expect(first.json.choices[0].finish_reason).toBe('stop');
    const second = await raw(origin, '/v1/chat/completions', { body: chatBody() });
    expect(second.json.choices[0].message.tool_calls[0].id).toMatch(/^call_/);
    const third = await raw(origin, '/v1/chat/completions', { body: chatBody() });
    expect(third.json.usage.total_tokens).toBe(3);
    for (const r of [first, second, third]) expect(r.json.choices[0]).toHaveProperty('logprobs', null);
  });

  it('an answer a plugin changed is encoded from the change, never forwarded from the vendor', async () => {
    const primary = await vendor(answers(['from the vendor']));
    const rewrite = definePlugin({
      name: 'rewrite',
      apply(p) {
        p.hooks.call.for('openai').tapPromise({ name: 'rewrite', stage: STAGE.FIRST }, async (attempt, ctx) => {
          if (attempt.initiator === 'rewrite') return undefined; // its own attempt goes to the codec tap
          const result = await ctx.runAttempt(attempt.candidate, { initiator: 'rewrite' });
          if (result.type !== 'response') return result;
          const choice = result.response.choices[0];
          return { ...result, response: { ...result.response, choices: [{ ...choice, message: { ...choice.message, content: 'rewritten' } }] } };
        });
      },
    });
    const { origin } = await startGateway(pipelineFor({ vendors: { primary }, extra: { plugins: [rewrite()] } }));
    const res = await raw(origin, '/v1/chat/completions', { body: chatBody() });
    expect(res.status).toBe(200);
    expect(res.json.choices[0].message.content).toBe('rewritten');
  });

  it('replaces a malformed request id and drops a malformed traceparent', async () => {
    const primary = await vendor(answers(['ok']));
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }));
    const res = await raw(origin, '/v1/chat/completions', { body: chatBody(), headers: { 'x-request-id': 'x'.repeat(500), traceparent: '00-zz-not-a-trace-01' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(primary.requests[0].headers.traceparent).toBeUndefined();
  });

  it("tells a flat-line logger which request ids it made (written unmasked), and not a client's", async () => {
    const primary = await vendor(answers(['ok']));
    const written: { requestId: unknown; made: readonly string[] | undefined }[] = [];
    // A logger with its own masker and flat-line writer, as `switchyard serve`'s.
    const logger = { ...recordingLogger(), [LOGGER_MASKER]: new SecretMasker(() => []), [LOGGER_FLAT_LINE]: (_level: string, fields: LogFields, _message: string, made?: readonly string[]) => void written.push({ requestId: fields.requestId, made }) };
    const { origin } = await startGateway(pipelineFor({ vendors: { primary } }), { logger });
    const own = await raw(origin, '/v1/chat/completions', { body: chatBody() });
    const malformed = await raw(origin, '/v1/chat/completions', { body: chatBody(), headers: { 'x-request-id': 'x'.repeat(500) } });
    await raw(origin, '/v1/chat/completions', { body: chatBody(), headers: { 'x-request-id': 'client-req-42' } });
    // Each line is written as its request's handler ends, after the answer went out.
    await expect.poll(() => written.length).toBe(3);
    expect(written).toEqual([
      { requestId: own.headers.get('x-request-id'), made: ['requestId'] },
      { requestId: malformed.headers.get('x-request-id'), made: ['requestId'] },
      { requestId: 'client-req-42', made: undefined },
    ]);
  });

  it('lists the logical models and answers health and readiness', async () => {
    const primary = await vendor(answers(['ok']));
    const { client, origin } = await startGateway(pipelineFor({ vendors: { primary }, model: 'fast' }));
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['fast']);
    expect((await client.models.retrieve('fast')).id).toBe('fast');
    const health = await fetch(`${origin}/health`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${origin}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', models: 1 });
  });

  it('is not ready while a logical model has no usable candidate', async () => {
    const primary = await vendor(answers(['ok']));
    const { origin } = await startGateway(
      pipelineFor({
        vendors: { primary },
        extra: {
          endpoints: [{ name: 'primary', provider: 'openai', baseUrl: primary.url, apiKey: VENDOR_KEY }, { name: 'off', provider: 'openai', enabled: false }],
          models: { chat: [{ endpoint: 'primary', model: 'm' }], orphan: [{ endpoint: 'off', model: 'm' }] },
        },
      }),
    );
    const ready = await fetch(`${origin}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', modelsWithoutCandidates: ['orphan'] });
  });

  it('serves embeddings with the same failover', async () => {
    const down = await vendor(fails(500));
    const up = await vendor((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5] }], model: 'up-model', usage: { prompt_tokens: 2, total_tokens: 2 } }));
    });
    const { client } = await startGateway(pipelineFor({ vendors: { down, up } }));
    const { data, response } = await client.embeddings.create({ model: 'chat', input: 'hello', encoding_format: 'float' }).withResponse();
    expect(data.data[0].embedding).toEqual([0.25, -0.5]);
    expect(response.headers.get('x-switchyard-endpoint')).toBe('up');
    expect(response.headers.get('x-switchyard-attempts')).toBe('2');
  });

  it('exposes counters on /metrics', async () => {
    const down = await vendor(fails(503));
    const up = await vendor(answers(['ok']));
    const { client, origin } = await startGateway(pipelineFor({ vendors: { down, up } }));
    await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
    expect(text).toContain('switchyard_gateway_requests_total{route="/v1/chat/completions",status="200"} 1');
    expect(text).toContain('switchyard_gateway_in_flight 0');
    expect(text).not.toContain(VENDOR_KEY);
    expect((await fetch(`${origin}/metrics`)).status).toBe(401);
  });

  it('names the degrade level when every candidate failed and a canned answer was served', async () => {
    const cannedAnswer = definePlugin({
      name: 'test-canned',
      apply(pipeline) {
        pipeline.hooks.degrade.tapPromise({ name: 'test-canned', stage: STAGE.DEFAULT }, async () => ({
          level: 'canned',
          response: { id: 'canned-1', object: 'chat.completion', created: 1, model: 'canned', choices: [{ index: 0, message: { role: 'assistant', content: 'try again later' }, finish_reason: 'stop' }] },
        }));
      },
    });
    const down = await vendor(fails(500));
    const { client } = await startGateway(pipelineFor({ vendors: { down }, extra: { plugins: [cannedAnswer()] } }));
    const { data, response } = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.choices[0].message.content).toBe('try again later');
    expect(response.headers.get('x-switchyard-degraded')).toBe('canned');
    const streamed = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], stream: true }).withResponse();
    expect(streamed.response.headers.get('x-switchyard-degraded')).toBe('canned');
    let text = '';
    for await (const c of streamed.data) text += c.choices[0]?.delta.content ?? '';
    expect(text).toBe('try again later');
  });
});
