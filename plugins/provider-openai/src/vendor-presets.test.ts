/**
 * The Chinese vendor presets against error bodies shaped as each vendor documents them
 * (DashScope compatible mode and native, Zhipu business codes, Moonshot types, Qianfan v2 and
 * legacy numeric codes, DeepSeek statuses), plus an end-to-end failover on loopback.
 */
import { describe, expect, it, afterEach } from 'vitest';
import { createPipeline, outcomeOf, type Candidate, type ProviderV1 } from '@switchyard/core';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { providers, vendorPresetProviders } from './index.js';

const byId = (id: string): ProviderV1 => vendorPresetProviders.find((p) => p.id === id)!;
const target = { apiKey: 'sk-preset-secret-0001', model: 'm' } as Candidate;
const classify = (id: string, status: number, body: unknown) => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return byId(id).classifyError({ status, headers: { 'content-type': 'application/json' }, text, json }, target);
};

interface Row {
  vendor: string;
  name: string;
  status: number;
  body: unknown;
  kind: string;
  outcome: string;
}

const rows: Row[] = [
  // DashScope compatible mode wraps the code in an OpenAI error object; the native API puts it at the top.
  { vendor: 'dashscope', name: 'Arrearage (compatible mode)', status: 400, body: { error: { code: 'Arrearage', param: null, message: 'Access denied, please make sure your account is in good standing.', type: 'Arrearage' }, request_id: 'b7b8c1c2-0000-4000-8000-000000000001' }, kind: 'payment', outcome: 'key-failure' },
  { vendor: 'dashscope', name: 'Arrearage (native)', status: 400, body: { code: 'Arrearage', message: 'Access denied, please make sure your account is in good standing.', request_id: 'b7b8c1c2-0000-4000-8000-000000000002' }, kind: 'payment', outcome: 'key-failure' },
  { vendor: 'dashscope', name: 'InvalidApiKey (native)', status: 401, body: { code: 'InvalidApiKey', message: 'Invalid API-key provided.', request_id: 'r3' }, kind: 'auth', outcome: 'key-failure' },
  { vendor: 'dashscope', name: 'invalid_api_key (compatible mode)', status: 401, body: { error: { message: 'Incorrect API key provided. ', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }, kind: 'auth', outcome: 'key-failure' },
  { vendor: 'dashscope', name: 'Throttling.RateQuota', status: 429, body: { code: 'Throttling.RateQuota', message: 'Requests rate limit exceeded, please try again later.', request_id: 'r4' }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'dashscope', name: 'Throttling.AllocationQuota', status: 429, body: { error: { code: 'Throttling.AllocationQuota', message: 'Allocated quota exceeded, please increase your quota limit.', type: 'Throttling.AllocationQuota' } }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'dashscope', name: 'DataInspectionFailed (native)', status: 400, body: { code: 'DataInspectionFailed', message: 'Input data may contain inappropriate content.', request_id: 'r5' }, kind: 'content-filter', outcome: 'request-failure' },
  { vendor: 'dashscope', name: 'data_inspection_failed (compatible mode)', status: 400, body: { error: { code: 'data_inspection_failed', param: null, message: 'Input data may contain inappropriate content.', type: 'data_inspection_failed' } }, kind: 'content-filter', outcome: 'request-failure' },
  // Zhipu: the business code is a string in error.code; 1113 arrives with HTTP 429.
  { vendor: 'zhipu', name: '1113 balance exhausted', status: 429, body: { error: { code: '1113', message: '余额不足或无可用资源包,请充值。' } }, kind: 'payment', outcome: 'key-failure' },
  { vendor: 'zhipu', name: '1301 content filter', status: 400, body: { error: { code: '1301', message: '系统检测到输入或生成内容可能包含不安全或敏感内容，请您避免输入易产生敏感内容的提示语，感谢您的配合。' } }, kind: 'content-filter', outcome: 'request-failure' },
  { vendor: 'zhipu', name: '1302 concurrency', status: 429, body: { error: { code: '1302', message: '您当前使用该API的并发数过高，请降低并发，或联系客服增加限额。' } }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'zhipu', name: '1303 frequency', status: 429, body: { error: { code: '1303', message: '您当前使用该API的频率过高，请降低频率，或联系客服增加限额。' } }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'zhipu', name: '1305 too many requests', status: 429, body: { error: { code: '1305', message: '当前API请求过多，请稍后重试。' } }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'zhipu', name: '1002 invalid token', status: 401, body: { error: { code: '1002', message: 'Authorization Token非法，请确认Authorization Token正确传递。' } }, kind: 'auth', outcome: 'key-failure' },
  // Moonshot: OpenAI-shaped bodies, the meaning in `type`.
  { vendor: 'moonshot', name: 'exceeded_current_quota_error', status: 429, body: { error: { message: 'Your account org-0000 <ak-0000> is suspended, please check your plan and billing details', type: 'exceeded_current_quota_error' } }, kind: 'payment', outcome: 'key-failure' },
  { vendor: 'moonshot', name: 'rate_limit_reached_error', status: 429, body: { error: { message: 'Your account org-0000 <ak-0000> request reached organization max RPM: 3, please try again after 1 seconds', type: 'rate_limit_reached_error' } }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'moonshot', name: 'content_filter', status: 400, body: { error: { message: 'The request was rejected because it was considered high risk', type: 'content_filter' } }, kind: 'content-filter', outcome: 'request-failure' },
  { vendor: 'moonshot', name: 'invalid_authentication_error', status: 401, body: { error: { message: 'Invalid Authentication', type: 'invalid_authentication_error' } }, kind: 'auth', outcome: 'key-failure' },
  { vendor: 'moonshot', name: 'engine_overloaded_error', status: 429, body: { error: { message: 'The engine is currently overloaded, please try again later', type: 'engine_overloaded_error' } }, kind: 'overloaded', outcome: 'endpoint-failure' },
  // Qianfan v2 (OpenAI-compatible) and the legacy numeric codes some gateways still relay.
  { vendor: 'qianfan', name: 'invalid_iam_token', status: 401, body: { error: { code: 'invalid_iam_token', message: 'IAM Certification failed', type: 'invalid_request_error' }, id: 'as-0001' }, kind: 'auth', outcome: 'key-failure' },
  { vendor: 'qianfan', name: 'rpm_rate_limit_exceeded', status: 429, body: { error: { code: 'rpm_rate_limit_exceeded', message: 'Rate limit reached for RPM', type: 'rate_limit_exceeded' }, id: 'as-0002' }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'qianfan', name: 'legacy 336502 TPM', status: 200, body: { error_code: 336502, error_msg: 'Rate limit reached for TPM' }, kind: 'rate-limit', outcome: 'rate-limited' },
  { vendor: 'qianfan', name: 'legacy 17 daily limit', status: 400, body: { error_code: 17, error_msg: 'Open api daily request limit reached' }, kind: 'payment', outcome: 'key-failure' },
  { vendor: 'qianfan', name: 'arrears in prose', status: 403, body: { error: { code: 'access_denied', message: '账户已欠费，请充值后重试', type: 'invalid_request_error' } }, kind: 'payment', outcome: 'key-failure' },
  // DeepSeek: the meaning is in the status.
  { vendor: 'deepseek', name: '402 insufficient balance', status: 402, body: { error: { message: 'Insufficient Balance', type: 'unknown_error', param: null, code: 'invalid_request_error' } }, kind: 'payment', outcome: 'key-failure' },
  { vendor: 'deepseek', name: '503 server busy', status: 503, body: { error: { message: 'Server overloaded, please retry shortly.', type: 'unknown_error', param: null, code: 'invalid_request_error' } }, kind: 'overloaded', outcome: 'endpoint-failure' },
  { vendor: 'deepseek', name: '429 rate limit', status: 429, body: { error: { message: 'Rate Limit Reached', type: 'rate_limit_error', param: null, code: 'rate_limit_reached' } }, kind: 'rate-limit', outcome: 'rate-limited' },
];

describe('Chinese vendor presets: error tables', () => {
  it.each(rows)('$vendor: $name → $kind', ({ vendor, status, body, kind, outcome }) => {
    const error = classify(vendor, status, body);
    expect(error.kind).toBe(kind);
    expect(outcomeOf(error)).toBe(outcome);
  });

  it('the generic compatible family misreads these (the reason for the presets)', () => {
    const compat = providers.find((p) => p.id === 'openai-compatible')!;
    const arrearage = { status: 400, headers: {}, text: '{"code":"Arrearage","message":"Access denied"}', json: { code: 'Arrearage', message: 'Access denied' } };
    expect(compat.classifyError(arrearage, target).kind).toBe('bad-request');
    const zhipu = { status: 429, headers: {}, text: '', json: { error: { code: '1113', message: '余额不足' } } };
    expect(compat.classifyError(zhipu, target).kind).toBe('rate-limit');
  });

  it('each preset has a default base URL and Bearer auth, so baseUrl is optional', () => {
    for (const p of vendorPresetProviders) {
      expect(p.defaultBaseUrl).toMatch(/^https:\/\//);
      const built = p.buildRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }, target, { stream: false });
      expect(built.headers.authorization).toBe('Bearer sk-preset-secret-0001');
      expect(built.path).toBe('/chat/completions');
    }
    expect(vendorPresetProviders.map((p) => p.id)).toEqual(['dashscope', 'zhipu', 'moonshot', 'qianfan', 'deepseek']);
  });
});

describe('Chinese vendor presets: through a pipeline', () => {
  let servers: Loopback[] = [];
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()));
    servers = [];
  });

  it('DashScope Arrearage fails over to the healthy backup instead of reaching the caller', async () => {
    const dashscope = await startLoopback((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'Arrearage', param: null, message: 'Access denied, please make sure your account is in good standing.', type: 'Arrearage' } }));
    });
    const backup = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'glm-4', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
    });
    servers.push(dashscope, backup);
    const pipeline = createPipeline({
      endpoints: [
        { name: 'qwen', provider: 'dashscope', baseUrl: dashscope.url, apiKey: 'sk-dashscope-0001' },
        { name: 'glm', provider: 'zhipu', baseUrl: backup.url, apiKey: 'sk-zhipu-0001' },
      ],
      models: { chat: [{ endpoint: 'qwen', model: 'qwen-plus' }, { endpoint: 'glm', model: 'glm-4' }] },
      providers,
    });
    const response = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.switchyard?.endpoint).toBe('glm');
    expect(dashscope.requests).toHaveLength(1);
    await pipeline.close();
  });
});
