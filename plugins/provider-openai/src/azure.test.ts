import { afterEach, describe, expect, it } from 'vitest';
import { azureProvider, AZURE_DEFAULT_API_VERSION } from './index.js';
import { attemptError, closeAll, reframeChunks, replay, SECRET_KEY, streamParts } from './test-support/harness.js';

afterEach(closeAll);

/** The loopback stands in for the resource root: its URL without the `/v1` the helper adds. */
const root = (url: string) => url.replace(/\/v1$/, '');

describe('azure', () => {
  it('streams the recorded model-router answer: empty first chunk skipped, its filter results kept', async () => {
    const { vendor, pipeline } = await replay(azureProvider, { body: reframeChunks('azure-model-router.1.chunks.txt') }, (url) => ({ baseUrl: root(url), apiVersion: '2025-04-01-preview' }), 'my-router');
    const parts = await streamParts(pipeline);
    const meta = parts.filter((p) => p.type === 'response-metadata');
    expect(meta).toHaveLength(1);
    expect(meta[0]).toMatchObject({ id: 'chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt', model: 'gpt-5-nano-2025-08-07', created: 1762317021 });
    expect(meta[0].type === 'response-metadata' && meta[0].providerMetadata?.azure.prompt_filter_results).toEqual([
      expect.objectContaining({ prompt_index: 0, content_filter_results: expect.objectContaining({ jailbreak: { filtered: false, detected: false } }) }),
    ]);
    const text = parts.map((p) => (p.type === 'text-delta' ? p.text : '')).join('');
    expect(text.startsWith('Capital of')).toBe(true);
    const finish = parts.find((p) => p.type === 'finish');
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(parts.at(-1)).toEqual({ type: 'usage', usage: { prompt_tokens: 15, completion_tokens: 78, total_tokens: 93, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 64 } } });

    const sent = vendor.requests[0];
    expect(sent.path).toBe('/openai/deployments/my-router/chat/completions?api-version=2025-04-01-preview');
    expect(sent.headers['api-key']).toBe(SECRET_KEY);
    expect(sent.headers.authorization).toBeUndefined();
  });

  it('uses the default GA api-version, accepts a baseUrl ending in /openai, and drops fields Azure rejects', async () => {
    const { vendor, pipeline } = await replay(azureProvider, { body: JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'gpt-4o-2024-11-20', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop', content_filter_results: { hate: { filtered: false, severity: 'safe' } } }], prompt_filter_results: [{ prompt_index: 0 }] }) }, (url) => ({ baseUrl: `${root(url)}/openai/` }), 'prod deploy');
    const res = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, verbosity: 'low', switchyard: { tier: 'fast' } });
    expect(vendor.requests[0].path).toBe(`/openai/deployments/prod%20deploy/chat/completions?api-version=${AZURE_DEFAULT_API_VERSION}`);
    expect(JSON.parse(vendor.requests[0].body)).toEqual({ model: 'prod deploy', messages: [{ role: 'user', content: 'hi' }], temperature: 0.2 });
    expect(res.model).toBe('gpt-4o-2024-11-20');
    expect(res.providerMetadata).toEqual({ azure: { prompt_filter_results: [{ prompt_index: 0 }] } });
    expect(res.choices[0].message.providerMetadata).toEqual({ azure: { content_filter_results: { hate: { filtered: false, severity: 'safe' } } } });
  });

  it('apiVersion v1 selects the /openai/v1 surface with the deployment in the body', async () => {
    const { pipeline } = await replay(azureProvider, { body: '{}' }, { apiVersion: 'v1' }, 'dep');
    const candidate = pipeline.candidatesFor('chat')[0];
    expect(azureProvider.buildRequest({ model: 'chat', messages: [] }, candidate, { stream: false }).path).toBe('/openai/v1/chat/completions');
    expect(azureProvider.probe?.(candidate)).toMatchObject({ method: 'GET', path: '/openai/v1/models', headers: { 'api-key': SECRET_KEY } });
    expect(azureProvider.defaultBaseUrl).toBeUndefined();
  });

  it('a prompt-side content filter 400 is a content-filter request failure, not retried', async () => {
    const body = {
      error: {
        message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
        type: null, param: 'prompt', code: 'content_filter', status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { violence: { filtered: true, severity: 'medium' } } },
      },
    };
    const { vendor, pipeline } = await replay(azureProvider, { status: 400, body: JSON.stringify(body) }, (url) => ({ baseUrl: root(url) }));
    const error = await attemptError(pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'bad' }] }));
    expect(error).toMatchObject({ kind: 'content-filter', status: 400, retryable: false, vendorCode: 'content_filter', outcome: 'request-failure' });
    expect(vendor.requests).toHaveLength(1);
  });

  it('an output-side content_filter finish ends the stream with finish_reason content_filter', async () => {
    const chunk = (c: unknown) => `data: ${JSON.stringify(c)}\n\n`;
    const { pipeline } = await replay(azureProvider, {
      body: [
        chunk({ choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: [] }),
        chunk({ id: 'a1', model: 'gpt-4o', created: 2, choices: [{ index: 0, delta: { role: 'assistant', content: 'Once' }, finish_reason: null }] }),
        chunk({ id: 'a1', model: 'gpt-4o', created: 2, choices: [{ index: 0, delta: {}, finish_reason: 'content_filter', content_filter_results: { violence: { filtered: true, severity: 'high' } } }] }),
        'data: [DONE]\n\n',
      ],
    }, (url) => ({ baseUrl: root(url) }));
    const parts = await streamParts(pipeline);
    expect(parts.at(-1)).toEqual({ type: 'finish', finishReason: 'content_filter', providerMetadata: { azure: { content_filter_results: { violence: { filtered: true, severity: 'high' } } } } });
  });

  it('a 429 with only a prose delay uses it; DeploymentNotFound is a misconfiguration', async () => {
    const { vendor, pipeline } = await replay(azureProvider, {
      status: 429,
      body: JSON.stringify({ error: { code: '429', message: 'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2024-08-01-preview have exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 20 seconds.' } }),
    }, (url) => ({ baseUrl: root(url) }));
    const limited = await attemptError(pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'x' }] }));
    expect(limited).toMatchObject({ kind: 'rate-limit', retryable: true, retryAfterMs: 20_000, vendorCode: '429' });
    vendor.reply = { status: 404, body: JSON.stringify({ error: { code: 'DeploymentNotFound', message: 'The API deployment for this resource does not exist.' } }) };
    const missing = await attemptError(pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'x' }] }));
    expect(missing).toMatchObject({ kind: 'not-found', outcome: 'misconfigured', vendorCode: 'DeploymentNotFound' });
  });
});
