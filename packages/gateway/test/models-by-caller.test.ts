/**
 * `GET /v1/models` is one path answered in the caller's shape, chosen by its headers: Gemini's
 * key (`x-goog-api-key`, `?key=`) → Gemini; `anthropic-version` or `x-api-key` → Anthropic (what
 * the Anthropic SDK and Claude Code send); Codex's discovery (`?client_version=`) → Codex's
 * `{ models: [ModelInfo] }`; anything else → OpenAI's list.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { geminiDialect } from '@switchyard/provider-gemini/dialect';
import { DEFAULT_DIALECTS } from '../src/index.js';
import { GATEWAY_KEY, raw, startGateway, stopAll } from './support/harness.js';
import { pipelineOf } from './support/messages.js';

afterEach(stopAll);

async function gateway() {
  const pipeline = pipelineOf([{ name: 'claude', kind: 'anthropic', url: 'http://127.0.0.1:9' }]);
  return startGateway(pipeline, { dialects: [...DEFAULT_DIALECTS, geminiDialect] });
}

describe('GET /v1/models in the caller’s shape', () => {
  it('OpenAI by default, with a bearer key', async () => {
    const { client } = await gateway();
    const page = await client.models.list();
    expect(page.data).toEqual([expect.objectContaining({ id: 'claude-sonnet-4-5', object: 'model', owned_by: 'switchyard' })]);
  });

  it('Anthropic for the Anthropic SDK (x-api-key, anthropic-version), one model included', async () => {
    const { origin } = await gateway();
    const anthropic = new Anthropic({ baseURL: origin, apiKey: GATEWAY_KEY, maxRetries: 0 });
    const page = await anthropic.models.list();
    expect(page.data).toEqual([{ type: 'model', id: 'claude-sonnet-4-5', display_name: 'claude-sonnet-4-5', created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
    const one = await anthropic.models.retrieve('claude-sonnet-4-5');
    expect(one).toMatchObject({ type: 'model', id: 'claude-sonnet-4-5' });
    const missing = await raw(origin, '/v1/models/nope', { method: 'GET', headers: { 'x-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', authorization: '' } });
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('Codex’s shape for its model discovery', async () => {
    const { origin } = await gateway();
    const res = await raw(origin, '/v1/models?client_version=0.171.0', { method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.json.models).toEqual([expect.objectContaining({ slug: 'claude-sonnet-4-5', display_name: 'claude-sonnet-4-5', visibility: 'list', supported_in_api: true, priority: 1, base_instructions: null, shell_type: 'shell_command' })]);
  });

  it('Gemini for a Gemini key, even beside Anthropic headers', async () => {
    const { origin } = await gateway();
    const res = await raw(origin, '/v1/models', { method: 'GET', headers: { 'x-goog-api-key': GATEWAY_KEY, 'anthropic-version': '2023-06-01', authorization: '' } });
    expect(res.status).toBe(200);
    expect(res.json.models[0]).toMatchObject({ name: 'models/claude-sonnet-4-5' });
  });
});
