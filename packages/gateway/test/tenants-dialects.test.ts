/**
 * Virtual keys (@switchyard/plugin-tenants) on every ingress dialect: a key's allow-list holds
 * on the Anthropic Messages routes (count_tokens included) with Anthropic's error shape, a
 * request is attributed to its key whatever the dialect, and a stored Responses answer belongs
 * to the key that stored it.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline } from '@switchyard/core';
import { quota } from '@switchyard/plugin-quota';
import { tenants } from '@switchyard/plugin-tenants';
import { providers as openaiFamily } from '@switchyard/provider-openai';
import { answers, startGateway, stopAll, vendor, VENDOR_KEY, type Harness } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

afterEach(stopAll);

const ADMIN_KEY = 'admin-key-for-dialect-tests-0123';

async function keyFor(h: Harness, fields: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.origin}/switchyard/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(fields) });
  expect(res.status).toBe(201);
  const json = (await res.json()) as { key: { id: string }; secret: string };
  return { id: json.key.id, secret: json.secret };
}

async function gatewayWithKeys() {
  const upstream = await vendor(answers(['hello']));
  const pipeline = createPipeline({
    endpoints: [{ name: 'compat', provider: 'openai-compatible', baseUrl: upstream.url, apiKey: VENDOR_KEY }],
    models: { chat: [{ endpoint: 'compat', model: 'm' }], other: [{ endpoint: 'compat', model: 'm' }] },
    providers: openaiFamily,
    plugins: [quota({ ledger: {} }), tenants()],
  });
  const log = recordingLogger();
  const h = await startGateway(pipeline, { logger: log, server: { apiKeys: [], adminKeys: [ADMIN_KEY] } });
  return { h, log, upstream };
}

describe('virtual keys on every dialect', () => {
  it("refuse a model outside the key's allow-list on /v1/messages and its count_tokens, in Anthropic's shape, before any vendor call", async () => {
    const { h, upstream } = await gatewayWithKeys();
    const key = await keyFor(h, { name: 'team-a', team: 'a', models: ['chat'] });
    const client = new Anthropic({ baseURL: h.origin, apiKey: key.secret, maxRetries: 0 });
    const ok = await client.messages.create({ model: 'chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    expect(ok.content[0]).toMatchObject({ type: 'text', text: 'hello' });
    const calls = upstream.requests.length;

    const refused = await client.messages.create({ model: 'other', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((refused as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'permission_error', message: expect.stringContaining('"other"') } });

    const count = await client.messages.countTokens({ model: 'other', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(count).toBeInstanceOf(Anthropic.PermissionDeniedError);
    expect((await client.messages.countTokens({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).input_tokens).toBeGreaterThan(0);
    expect(upstream.requests.length).toBe(calls);
  });

  it('attribute a Messages request and a Responses request to the key that made them (the access line names it)', async () => {
    const { h, log } = await gatewayWithKeys();
    const key = await keyFor(h, { name: 'team-b', team: 'b' });
    await new Anthropic({ baseURL: h.origin, apiKey: key.secret, maxRetries: 0 }).messages.create({ model: 'chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] });
    await new OpenAI({ baseURL: h.baseURL, apiKey: key.secret, maxRetries: 0 }).responses.create({ model: 'chat', input: 'hi' });
    await expect.poll(() => log.lines.filter((l) => l.event === 'access').length).toBe(2);
    const access = log.lines.filter((l) => l.event === 'access');
    expect(access.map((l) => [l.route, l.gatewayKey, l.team, l.status])).toEqual([
      ['/v1/messages', key.id, 'b', 200],
      ['/v1/responses', key.id, 'b', 200],
    ]);
  });

  it("keep a stored response the key's own: another key can neither read, continue nor delete it", async () => {
    const { h } = await gatewayWithKeys();
    const owner = new OpenAI({ baseURL: h.baseURL, apiKey: (await keyFor(h, { name: 'owner' })).secret, maxRetries: 0 });
    const other = new OpenAI({ baseURL: h.baseURL, apiKey: (await keyFor(h, { name: 'other' })).secret, maxRetries: 0 });
    const stored = await owner.responses.create({ model: 'chat', input: 'remember this', store: true });
    expect((await owner.responses.retrieve(stored.id)).id).toBe(stored.id);

    await expect(other.responses.retrieve(stored.id)).rejects.toMatchObject({ status: 404, code: 'response_not_found' });
    await expect(other.responses.create({ model: 'chat', input: 'and then?', previous_response_id: stored.id })).rejects.toMatchObject({ status: 400, code: 'previous_response_not_found' });
    await expect(other.responses.delete(stored.id)).rejects.toMatchObject({ status: 404 });
    // The owner still has it, and continues from it.
    const next = await owner.responses.create({ model: 'chat', input: 'and then?', previous_response_id: stored.id });
    expect(next.output_text).toBe('hello');
  });
});
