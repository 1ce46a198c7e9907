/**
 * `server.limits` holds for every dialect: a request the gateway decoded from a Messages or a
 * Gemini body (a new object, which the pipeline checks again) is checked against the operator's
 * limits, not the defaults. Before, a limit raised above its default was refused a second time
 * by the pipeline with the default's number.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_REQUEST_LIMITS } from '@switchyard/core/internal';
import { geminiDialect } from '@switchyard/provider-gemini';
import { DEFAULT_DIALECTS } from '../src/index.js';
import { GATEWAY_KEY, raw, startGateway, stopAll } from './support/harness.js';
import { MODEL, pipelineOf, scriptedVendor } from './support/messages.js';

afterEach(stopAll);

const turns = (count: number) => Array.from({ length: count }, (_, i) => (i % 2 === 0 ? 'user' : 'assistant'));
const over = DEFAULT_REQUEST_LIMITS.maxMessages + 1;

describe('server.limits above the defaults', () => {
  it('let a Messages request with more turns than the default through, and refuse one past the configured limit naming it', async () => {
    const claude = await scriptedVendor('anthropic', () => ({ text: 'ok' }));
    const { origin } = await startGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]), { server: { limits: { maxMessages: over + 10 } } });
    const send = (count: number) => raw(origin, '/v1/messages', { body: JSON.stringify({ model: MODEL, max_tokens: 16, messages: turns(count).map((role) => ({ role, content: 'x' })) }), headers: { 'anthropic-version': '2023-06-01' } });
    const ok = await send(over);
    expect(ok.status, ok.text).toBe(200);
    expect(JSON.parse(claude.requests[0]!.body).messages).toHaveLength(over);
    const refused = await send(over + 11);
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toContain(`the limit is ${over + 10}`);
  });

  it('let a Gemini request with more contents than the default through', async () => {
    const gemini = await scriptedVendor('gemini', () => ({ text: 'ok' }));
    const { origin } = await startGateway(pipelineOf([{ name: 'gemini', kind: 'gemini', url: gemini.url }]), { dialects: [...DEFAULT_DIALECTS, geminiDialect], server: { limits: { maxMessages: over + 10 } } });
    const contents = turns(over).map((role) => ({ role: role === 'user' ? 'user' : 'model', parts: [{ text: 'x' }] }));
    const res = await fetch(`${origin}/v1beta/models/${MODEL}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents }) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(JSON.parse(gemini.requests[0]!.body).contents).toHaveLength(over);
  });
});
