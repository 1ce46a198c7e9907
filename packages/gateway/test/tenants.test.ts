/**
 * Virtual keys on one gateway (@switchyard/plugin-tenants, in-memory store): the admin API,
 * the key kinds never accepted in each other's place, allow-lists, budgets, and attribution in
 * the ledger, the admin usage, metrics, the access line and /status. The client is the official
 * OpenAI SDK.
 */
import http from 'node:http';
import OpenAI from 'openai';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore, type Pipeline, type PipelineOptions } from '@switchyard/core';
import { metrics } from '@switchyard/plugin-metrics';
import { quota } from '@switchyard/plugin-quota';
import { tenants, type TenantsOptionsInput } from '@switchyard/plugin-tenants';
import { openaiProvider } from '@switchyard/provider-openai';
import { createGateway } from '../src/index.js';
import { answers, GATEWAY_KEY, startGateway, stopAll, vendor, VENDOR_KEY, type Harness, type Loopback } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

afterEach(stopAll);

const ADMIN_KEY = 'admin-key-for-tests-0123456789';
/** $1000 per million tokens: a vendor answer (3 + 2 tokens) costs $0.005. */
const PRICE = { input: 1000, output: 1000 };

function teamPipeline(upstream: Loopback, options: TenantsOptionsInput = {}, extra: Partial<PipelineOptions> = {}): Pipeline {
  return createPipeline({
    endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url, apiKey: VENDOR_KEY }],
    models: {
      chat: [{ endpoint: 'primary', model: 'primary-model', price: PRICE }],
      'gpt-4o-mini': [{ endpoint: 'primary', model: 'gpt-4o-mini', price: PRICE }],
    },
    providers: [openaiProvider],
    plugins: [quota({ ledger: {} }), tenants(options)],
    ...extra,
  });
}

async function admin(h: Harness, method: string, path: string, body?: unknown, key = ADMIN_KEY): Promise<{ status: number; json: any }> {
  const res = await fetch(h.origin + path, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

async function newKey(h: Harness, fields: Record<string, unknown>): Promise<{ id: string; secret: string; client: OpenAI }> {
  const created = await admin(h, 'POST', '/switchyard/keys', fields);
  expect(created.status).toBe(201);
  return { id: created.json.key.id, secret: created.json.secret, client: new OpenAI({ baseURL: h.baseURL, apiKey: created.json.secret, maxRetries: 0 }) };
}

const ask = (model = 'chat', extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user' as const, content: 'hi' }], ...extra });

async function refusal(work: Promise<unknown>): Promise<{ status: number; code: string; message: string; headers: Headers }> {
  const error = (await work.then(() => undefined, (e: unknown) => e)) as InstanceType<typeof OpenAI.APIError> | undefined;
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return { status: error!.status!, code: String(error!.code), message: error!.message, headers: error!.headers as Headers };
}

describe('tenants on the gateway', () => {
  it('creates a key through the admin API, shows its secret once, stores only its hash, and serves it to the OpenAI SDK', async () => {
    const upstream = await vendor(answers(['hello']));
    const store = new MemoryStateStore();
    const h = await startGateway(teamPipeline(upstream, {}, { store }), { server: { adminKeys: [ADMIN_KEY] } });
    const created = await admin(h, 'POST', '/switchyard/keys', { name: 'team-a-ci', team: 'a', owner: 'ci@example.com', budget: { month: { limitUsd: 50 } } });
    expect(created.status).toBe(201);
    expect(created.json.secret).toMatch(/^sy-key_[0-9a-f]{16}\.[A-Za-z0-9_-]{43}$/);
    expect(created.json.key).toMatchObject({ name: 'team-a-ci', team: 'a', owner: 'ci@example.com', status: 'active', source: 'api', budget: { month: { limitUsd: 50, soft: 0.8, hard: 1 } } });
    const secretPart = created.json.secret.split('.')[1];
    const stored = JSON.stringify(store.snapshot());
    expect(stored).toContain(created.json.key.id);
    expect(stored).not.toContain(secretPart);

    const client = new OpenAI({ baseURL: h.baseURL, apiKey: created.json.secret, maxRetries: 0 });
    expect((await client.chat.completions.create(ask())).choices[0].message.content).toBe('hello');
    const shown = await admin(h, 'GET', `/switchyard/keys/${created.json.key.id}`);
    expect(shown.status).toBe(200);
    expect(JSON.stringify(shown.json)).not.toMatch(/hash|secret/);
    const listed = await admin(h, 'GET', '/switchyard/keys');
    expect(listed.json.keys.map((k: { id: string }) => k.id)).toEqual([created.json.key.id]);
  });

  it('never accepts an admin key where a client key goes, nor a client key on the admin API', async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const { secret } = await newKey(h, { name: 'k' });
    const asAdmin = new OpenAI({ baseURL: h.baseURL, apiKey: ADMIN_KEY, maxRetries: 0 });
    expect(await refusal(asAdmin.chat.completions.create(ask()))).toMatchObject({ status: 401, code: 'invalid_api_key' });
    for (const key of [secret, GATEWAY_KEY, 'nonsense']) expect((await admin(h, 'GET', '/switchyard/keys', undefined, key)).status).toBe(401);
    // Operator routes: server keys and admin keys, never a tenant's key.
    for (const path of ['/status', '/metrics', '/switchyard/usage']) {
      expect((await fetch(h.origin + path, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
      expect((await fetch(h.origin + path, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(200);
      expect((await fetch(h.origin + path, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).status).toBe(200);
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a model outside the allow-list with 403 naming the model, before any vendor call, and lists only allowed models', async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const { client } = await newKey(h, { name: 'mini-only', models: ['gpt-4o*'] });
    const denied = await refusal(client.chat.completions.create(ask('chat')));
    expect(denied).toMatchObject({ status: 403, code: 'model_not_allowed' });
    expect(denied.message).toContain('"chat"');
    expect(denied.message).toContain('gpt-4o*');
    expect(upstream.requests).toHaveLength(0);
    expect((await client.chat.completions.create(ask('gpt-4o-mini'))).choices[0].message.content).toBe('hello');
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['gpt-4o-mini']);
    expect(await refusal(client.models.retrieve('chat'))).toMatchObject({ status: 404 });
  });

  it('answers unknown, malformed, wrong-secret and revoked keys with one 401, and an expired key with a 401 naming its expiry', async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const live = await newKey(h, { name: 'live' });
    const revoked = await newKey(h, { name: 'revoked' });
    expect((await admin(h, 'POST', `/switchyard/keys/${revoked.id}/revoke`, {})).json).toMatchObject({ status: 'revoked' });
    const wrongSecret = `${live.secret.slice(0, -4)}AAAA`;
    const unknownId = `sy-key_0000000000000000.${live.secret.split('.')[1]}`;
    const bodies = [];
    for (const key of [wrongSecret, unknownId, 'sy-not-a-key', revoked.secret, '']) {
      const res = await fetch(`${h.baseURL}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(ask()) });
      expect(res.status).toBe(401);
      bodies.push(await res.json());
    }
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(bodies[0].error.code).toBe('invalid_api_key');

    const expired = await newKey(h, { name: 'old', expiresAt: '2020-01-01T00:00:00Z' });
    const refusedExpired = await refusal(expired.client.chat.completions.create(ask()));
    expect(refusedExpired).toMatchObject({ status: 401, code: 'key_expired' });
    expect(refusedExpired.message).toContain('2020-01-01T00:00:00.000Z');
    // Only the holder of the secret learns that the key expired.
    const wrongExpired = await fetch(`${h.baseURL}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${expired.secret.slice(0, -4)}AAAA` }, body: JSON.stringify(ask()) });
    expect((await wrongExpired.json()).error.code).toBe('invalid_api_key');
    expect(upstream.requests).toHaveLength(0);
  });

  it('rotates a key: the new secret works, the old one only during the grace period asked for', async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const key = await newKey(h, { name: 'rotating' });
    const graced = await admin(h, 'POST', `/switchyard/keys/${key.id}/rotate`, { graceSeconds: 3600 });
    expect(graced.status).toBe(200);
    expect(graced.json.key.previousSecretUntil).toEqual(expect.any(String));
    const second = new OpenAI({ baseURL: h.baseURL, apiKey: graced.json.secret, maxRetries: 0 });
    expect((await second.chat.completions.create(ask())).choices).toHaveLength(1);
    expect((await key.client.chat.completions.create(ask())).choices).toHaveLength(1);
    const now = await admin(h, 'POST', `/switchyard/keys/${key.id}/rotate`, {});
    expect(await refusal(second.chat.completions.create(ask()))).toMatchObject({ status: 401 });
    expect(await refusal(key.client.chat.completions.create(ask()))).toMatchObject({ status: 401 });
    const third = new OpenAI({ baseURL: h.baseURL, apiKey: now.json.secret, maxRetries: 0 });
    expect((await third.chat.completions.create(ask())).choices).toHaveLength(1);
  });

  it('revokes on a POST without any body (curl -X POST), and a revoked key offers no grace period', async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const key = await newKey(h, { name: 'leaving' });
    const graced = await admin(h, 'POST', `/switchyard/keys/${key.id}/rotate`, { graceSeconds: 3600 });
    expect(graced.json.key.previousSecretUntil).toEqual(expect.any(String));
    // No Content-Length, no bytes: what curl -X POST sends.
    const revoked = await new Promise<{ status: number; json: any }>((resolve, reject) => {
      const req = http.request(`${h.origin}/switchyard/keys/${key.id}/revoke`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}`, 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ status: 'revoked', previousSecretUntil: null });
    expect((await admin(h, 'GET', `/switchyard/keys/${key.id}`)).json).toMatchObject({ status: 'revoked', previousSecretUntil: null });
    expect(await refusal(key.client.chat.completions.create(ask()))).toMatchObject({ status: 401 });
  });

  it("refuses a request past its key's budget or its team's with a coded 429 naming the budget", async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream, { teams: { t: { budget: { month: { limitUsd: 0.025 } } } } }), { server: { adminKeys: [ADMIN_KEY] } });
    // Each answer costs $0.005; with max_tokens 10 a request reserves at most $0.023 before the call (13 input tokens at most, 10 of output).
    const solo = await newKey(h, { name: 'solo', budget: { day: { limitUsd: 0.025 } } });
    await solo.client.chat.completions.create(ask('chat', { max_tokens: 10 }));
    const over = await refusal(solo.client.chat.completions.create(ask('chat', { max_tokens: 10 })));
    expect(over).toMatchObject({ status: 429, code: 'budget_exhausted' });
    expect(over.message).toMatch(/the day budget of key key_[0-9a-f]{16} \(solo\)/);
    expect(over.message).toContain('$0.0050 spent or reserved of $0.0250');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

    const a = await newKey(h, { name: 'a1', team: 't' });
    const b = await newKey(h, { name: 'b1', team: 't' });
    await a.client.chat.completions.create(ask('chat', { max_tokens: 10 }));
    const team = await refusal(b.client.chat.completions.create(ask('chat', { max_tokens: 10 })));
    expect(team).toMatchObject({ status: 429, code: 'budget_exhausted' });
    expect(team.message).toContain('the month budget of team t');
    expect(upstream.requests).toHaveLength(2);

    // The admin API raises the team's budget without a restart.
    expect((await admin(h, 'PATCH', '/switchyard/teams/t', { budget: { month: { limitUsd: 1 } } })).json).toMatchObject({ name: 't', source: 'api', budget: { month: { limitUsd: 1 } } });
    expect((await b.client.chat.completions.create(ask('chat', { max_tokens: 10 }))).choices).toHaveLength(1);
  });

  it('attributes every request to its key and team: ledger, key usage, metrics, the access line and /status agree', async () => {
    const upstream = await vendor(answers(['hello']));
    const registry = new Registry();
    const logger = recordingLogger();
    const pipeline = teamPipeline(upstream, {}, { plugins: [quota({ ledger: {} }), tenants({}), metrics({ registry })] });
    const h = await startGateway(pipeline, { server: { adminKeys: [ADMIN_KEY] }, logger });
    const a = await newKey(h, { name: 'team-a-app', team: 'a', tags: { project: 'search' } });
    const b = await newKey(h, { name: 'team-b-app', team: 'b' });
    await a.client.chat.completions.create(ask());
    await a.client.chat.completions.create(ask());
    await b.client.chat.completions.create(ask());
    await h.client.chat.completions.create(ask());

    const usage = async (groupBy: string) => (await fetch(`${h.origin}/switchyard/usage?groupBy=${groupBy}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
    const byKey = await usage('gatewayKey');
    expect(byKey.groups[a.id]).toMatchObject({ requests: 2, costUsd: 0.01 });
    expect(byKey.groups[b.id]).toMatchObject({ requests: 1, costUsd: 0.005 });
    expect(byKey.groups['server#0']).toMatchObject({ requests: 1 });
    const byTeam = await usage('team');
    expect(Object.keys(byTeam.groups).sort()).toEqual(['a', 'b']);
    expect(byTeam.groups.a.costUsd).toBe(0.01);
    expect((await usage('tag')).groups['project=search']).toMatchObject({ requests: 2 });

    const keyUsage = await admin(h, 'GET', `/switchyard/keys/${a.id}/usage`);
    expect(keyUsage.json.spend.day.spentUsd).toBe(byKey.groups[a.id].costUsd);
    expect(keyUsage.json.spend.month.spentUsd).toBe(0.01);
    expect(keyUsage.json.team).toMatchObject({ name: 'a', spend: { day: { spentUsd: 0.01 } } });
    expect(keyUsage.json.ledger.usage).toMatchObject({ requests: 2, costUsd: 0.01 });

    const exposition = await registry.metrics();
    expect(exposition).toContain(`switchyard_gateway_key_requests_total{gateway_key="${a.id}",team="a",outcome="success"} 2`);
    expect(exposition).toContain(`switchyard_gateway_key_cost_usd_total{gateway_key="${b.id}",team="b"} 0.005`);
    expect(exposition).not.toContain(a.secret.split('.')[1]);

    const lines = logger.lines.filter((l) => l.event === 'access');
    expect(lines.filter((l) => l.gatewayKey === a.id)).toHaveLength(2);
    expect(lines.find((l) => l.gatewayKey === b.id)).toMatchObject({ gatewayKeyName: 'team-b-app', team: 'b', model: 'chat', endpoint: 'primary', costUsd: 0.005 });
    expect(lines.find((l) => l.gatewayKey === 'server#0')).toBeDefined();
    expect(logger.text()).not.toContain(a.secret.split('.')[1]);

    const status = await (await fetch(`${h.origin}/status`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json();
    expect(status.callers.find((c: { keyId: string }) => c.keyId === a.id)).toMatchObject({ keyName: 'team-a-app', team: 'a', requests: 2, errors: 0, spendTodayUsd: 0.01 });
  });

  it('settles a streamed answer when its stream ends, at the cost the ledger bills', async () => {
    const upstream = await vendor(answers(['one ', 'two ', 'three']));
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const { id, client } = await newKey(h, { name: 'streamer', budget: { day: { limitUsd: 1 } } });
    const stream = await client.chat.completions.create({ ...ask('chat', { max_tokens: 10 }), stream: true, stream_options: { include_usage: true } });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('one two three');
    // The vendor reports 4 + 3 tokens: $0.007.
    await expect.poll(async () => (await admin(h, 'GET', `/switchyard/keys/${id}/usage`)).json.spend.day.spentUsd).toBe(0.007);
    expect((await admin(h, 'GET', `/switchyard/keys/${id}/usage`)).json.ledger.usage).toMatchObject({ requests: 1, costUsd: 0.007 });
  });

  it('limits requests in flight per key', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const upstream = await vendor(async (_req, res) => {
      await held;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'late' }, finish_reason: 'stop' }] }));
    });
    const h = await startGateway(teamPipeline(upstream), { server: { adminKeys: [ADMIN_KEY] } });
    const { client } = await newKey(h, { name: 'one-at-a-time', limits: { concurrency: 1 } });
    const first = client.chat.completions.create(ask());
    await expect.poll(() => upstream.requests.length).toBe(1);
    const second = await refusal(client.chat.completions.create(ask()));
    expect(second).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(second.message).toContain('at most 1 requests in flight');
    release();
    expect((await first).choices[0].message.content).toBe('late');
    expect((await client.chat.completions.create(ask())).choices[0].message.content).toBe('late');
  });

  it('needs a key on every model route once virtual keys exist, even with no server key', async () => {
    const upstream = await vendor(answers(['hello']));
    const gateway = createGateway({ pipeline: teamPipeline(upstream), server: { host: '127.0.0.1', port: 0, adminKeys: [ADMIN_KEY] } });
    const { url } = await gateway.listen();
    try {
      const anonymous = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ask()) });
      expect(anonymous.status).toBe(401);
      const created = await fetch(url.replace(/\/v1$/, '/switchyard/keys'), { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: JSON.stringify({ name: 'k' }) });
      const { secret } = await created.json();
      const client = new OpenAI({ baseURL: url, apiKey: secret, maxRetries: 0 });
      expect((await client.chat.completions.create(ask())).choices[0].message.content).toBe('hello');
    } finally {
      await gateway.close();
    }
  });

  it('refuses admin keys without the tenants plugin, and an admin key that is also a gateway key', async () => {
    const upstream = await vendor(answers(['hello']));
    const plain = createPipeline({ endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url, apiKey: VENDOR_KEY }], models: { chat: [{ endpoint: 'primary', model: 'm' }] }, providers: [openaiProvider] });
    expect(() => createGateway({ pipeline: plain, server: { port: 0, adminKeys: [ADMIN_KEY] } })).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_CONFIG', path: 'server.adminKeys' }));
    expect(() => createGateway({ pipeline: teamPipeline(upstream), server: { port: 0, apiKeys: [ADMIN_KEY], adminKeys: [ADMIN_KEY] } })).toThrow(/an admin key is also in server.apiKeys/);
    await plain.close();
  });

  it('answers bad admin input with coded errors naming the field', async () => {
    const upstream = await vendor(answers(['hello']));
    const h = await startGateway(teamPipeline(upstream, { keys: [{ id: 'ci', name: 'ci', secret: 'declared-secret-0123456789' }] }), { server: { adminKeys: [ADMIN_KEY] } });
    const missingName = await admin(h, 'POST', '/switchyard/keys', { team: 'a' });
    expect(missingName).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', param: 'name' } } });
    const badBudget = await admin(h, 'POST', '/switchyard/keys', { name: 'x', budget: { week: { limitUsd: 5 } } });
    expect(badBudget.status).toBe(400);
    expect(badBudget.json.error.message).toContain('budget');
    expect((await admin(h, 'GET', '/switchyard/keys/key_0123456789abcdef')).json.error.code).toBe('key_not_found');
    expect(await admin(h, 'GET', '/switchyard/keys/%E0%A4%A')).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', param: 'path' } } });
    expect(await admin(h, 'PUT', '/switchyard/keys')).toMatchObject({ status: 404, json: { error: { code: 'key_not_found', message: expect.stringContaining('accepts POST, GET') } } });
    expect((await admin(h, 'PATCH', '/switchyard/keys/ci', { name: 'y' })).json.error).toMatchObject({ code: 'key_conflict', message: expect.stringContaining('declared in the config') });
    const notJson = await fetch(`${h.origin}/switchyard/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: '{' });
    expect((await notJson.json()).error.code).toBe('invalid_json');
    // The declared key serves like any other and is listed as read-only.
    const declared = new OpenAI({ baseURL: h.baseURL, apiKey: 'declared-secret-0123456789', maxRetries: 0 });
    expect((await declared.chat.completions.create(ask())).choices).toHaveLength(1);
    expect((await admin(h, 'GET', '/switchyard/keys')).json.keys).toEqual([expect.objectContaining({ id: 'ci', source: 'config', status: 'active' })]);
  });
});
