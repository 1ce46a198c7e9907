/**
 * Vendor balances on virtual time against loopback vendors that answer like DeepSeek's
 * `GET /user/balance` and Moonshot's `GET /v1/users/me/balance`: polled per key, a warning
 * (webhook) before a key runs dry and its resolve, the balances on the gateway's /status.
 */
import { createPipeline, VirtualClock, type Pipeline } from '@switchyard/core';
import { createGateway } from '@switchyard/gateway';
import { alerts, getAlerts } from '@switchyard/plugin-alerts';
import { providers } from '@switchyard/provider-openai';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { balance, getBalances, type BalanceOptionsInput } from '../src/index.js';

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

const DEEPSEEK_KEYS = ['sk-7f3a9c0e1b2d4f6a8c0e', 'sk-2b4d6f8a0c1e3a5c7e9b'];
const MOONSHOT_KEY = 'sk-9e8d7c6b5a4f3e2d1c0b';

async function vendors() {
  // Per key: what the account holds (strings, as DeepSeek sends them).
  const deepseekFunds: Record<string, string> = { [DEEPSEEK_KEYS[0]]: '110.00', [DEEPSEEK_KEYS[1]]: '8.50' };
  let moonshotFunds = 49.58894;
  const deepseek = await startLoopback((req, res) => {
    const key = String(req.headers.authorization).replace('Bearer ', '');
    if (req.url !== '/user/balance') return void res.writeHead(404).end();
    if (!(key in deepseekFunds)) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ error: { message: `Authentication Fails, Your api key: ${key} is invalid`, type: 'authentication_error', code: 'invalid_request_error' } }));
    }
    const total = deepseekFunds[key];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ is_available: Number(total) > 0, balance_infos: [{ currency: 'CNY', total_balance: total, granted_balance: '0.00', topped_up_balance: total }] }));
  });
  const moonshot = await startLoopback((req, res) => {
    if (req.url !== '/v1/users/me/balance' || req.headers.authorization !== `Bearer ${MOONSHOT_KEY}`) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 0, data: { available_balance: moonshotFunds, voucher_balance: 46.58893, cash_balance: moonshotFunds - 46.58893 }, scode: '0x0', status: true }));
  });
  const hook = await startLoopback((_req, res) => void res.writeHead(200).end());
  running.push(deepseek, moonshot, hook);
  return {
    deepseek,
    moonshot,
    hook,
    setDeepseek: (key: string, total: string) => (deepseekFunds[key] = total),
    setMoonshot: (funds: number) => (moonshotFunds = funds),
  };
}

function pipelineOn(v: Awaited<ReturnType<typeof vendors>>, options: BalanceOptionsInput, clock = new VirtualClock(Date.UTC(2026, 11, 1, 9))): Pipeline {
  const pipeline = createPipeline({
    endpoints: [
      // DeepSeek's base URL ends in /v1; its balance route sits at the root.
      { name: 'deepseek', provider: 'deepseek', baseUrl: `${v.deepseek.url}`, apiKeys: DEEPSEEK_KEYS },
      { name: 'kimi', provider: 'moonshot', baseUrl: v.moonshot.url, apiKey: MOONSHOT_KEY },
      { name: 'openai', provider: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-openai-0001' },
    ],
    models: { chat: [{ endpoint: 'deepseek', model: 'deepseek-chat' }, { endpoint: 'kimi', model: 'kimi-k2' }, { endpoint: 'openai', model: 'gpt-4o-mini' }] },
    providers,
    clock,
    plugins: [balance(options), alerts({ channels: [{ type: 'webhook', url: `${v.hook.url}/alerts` }] })],
  });
  running.push(pipeline);
  return pipeline;
}

describe('vendor balances', () => {
  it('polls every key with a balance route, warns under the threshold and when dry, and resolves after a top-up', async () => {
    const v = await vendors();
    const clock = new VirtualClock(Date.UTC(2026, 11, 1, 9));
    const pipeline = pipelineOn(v, { everyMs: 600_000, endpoints: { deepseek: { minBalance: 10 }, kimi: { minBalance: 20 } } }, clock);
    const gateway = createGateway({ pipeline, server: { port: 0 } });
    running.push(gateway);
    const { url } = await gateway.listen();
    const notices = () => v.hook.requests.map((r) => JSON.parse(r.body)).filter((n) => n.alert === 'balance-low');
    // The plugin's own timer polls: at start, then every 10 minutes.
    const round = async (ms = 0) => {
      await clock.advance(ms);
      await getBalances(pipeline)!.settled();
      await getAlerts(pipeline)!.settled();
    };
    await round();
    const readings = getBalances(pipeline)!.readings();
    // OpenAI has no balance route: only the two DeepSeek keys and the Moonshot key are asked.
    expect(readings.map((r) => `${r.endpoint}|${r.keyId}:${r.balances.map((b) => `${b.available} ${b.currency}`).join()}:${r.low}`)).toEqual([
      'deepseek|deepseek#0:110 CNY:false',
      'deepseek|deepseek#1:8.5 CNY:true',
      'kimi|kimi#0:49.58894 CNY:false',
    ]);
    expect(readings[1]).toMatchObject({ provider: 'deepseek', minBalance: 10, dry: false, balances: [{ usable: true, parts: { granted: 0, toppedUp: 8.5 } }] });
    expect(v.deepseek.requests.map((r) => r.path)).toEqual(['/user/balance', '/user/balance']);
    expect(notices()).toEqual([expect.objectContaining({ state: 'firing', severity: 'warning', deployment: 'deepseek', message: expect.stringContaining('key deepseek#1 of deepseek has 8.5 CNY left, under the 10 threshold') })]);

    // Ten minutes later the other key has run dry, and Kimi is under its threshold.
    v.setDeepseek(DEEPSEEK_KEYS[0], '0.00');
    v.setMoonshot(12);
    await round(599_999);
    expect(v.deepseek.requests).toHaveLength(2);
    await round(1);
    expect(v.deepseek.requests).toHaveLength(4);
    expect(notices().map((n) => `${n.severity}:${n.state}:${n.details.keyId}`)).toEqual(['warning:firing:deepseek#1', 'critical:firing:deepseek#0', 'warning:firing:kimi#0']);

    // Topped up: each incident resolves once.
    v.setDeepseek(DEEPSEEK_KEYS[0], '500.00');
    v.setDeepseek(DEEPSEEK_KEYS[1], '500.00');
    v.setMoonshot(300);
    await round(600_000);
    expect(notices().filter((n) => n.state === 'resolved').map((n) => n.details.keyId).sort()).toEqual(['deepseek#0', 'deepseek#1', 'kimi#0']);
    expect(notices()).toHaveLength(6);

    // The balances on /status, without a key in them.
    const status = (await (await fetch(url.replace(/\/v1$/, '/status'))).json()) as { balances: { endpoint: string; keyId: string; low: boolean; balances: { available: number }[] }[] };
    expect(status.balances.map((b) => `${b.endpoint}|${b.keyId}:${b.balances[0].available}:${b.low}`)).toEqual(['deepseek|deepseek#0:500:false', 'deepseek|deepseek#1:500:false', 'kimi|kimi#0:300:false']);
    const page = await (await fetch(url.replace(/\/v1$/, '/status.html'))).text();
    expect(page).toContain('<h2>Balances</h2>');
    expect(JSON.stringify(status) + page).not.toContain('sk-');
  });

  it('a key the vendor rejects is reported with the error, never the key, and alerts nothing', async () => {
    const v = await vendors();
    const pipeline = createPipeline({
      endpoints: [{ name: 'deepseek', provider: 'deepseek', baseUrl: v.deepseek.url, apiKey: 'sk-revoked-key-00000001' }],
      models: { chat: [{ endpoint: 'deepseek', model: 'deepseek-chat' }] },
      providers,
      clock: new VirtualClock(),
      plugins: [balance({ endpoints: { deepseek: { minBalance: 10 } } })],
    });
    running.push(pipeline);
    await getBalances(pipeline)!.pollNow();
    const [reading] = getBalances(pipeline)!.readings();
    expect(reading).toMatchObject({ endpoint: 'deepseek', low: false, balances: [] });
    expect(reading.error).toMatch(/^auth 401: /);
    expect(reading.error).not.toContain('sk-revoked-key-00000001');
  });

  it('names a bad endpoint in its options', async () => {
    const v = await vendors();
    expect(() => pipelineOn(v, { endpoints: { nowhere: { minBalance: 1 } } })).toThrow(/endpoints\.nowhere: unknown endpoint "nowhere"/);
    expect(() => pipelineOn(v, { endpoints: { openai: { minBalance: 1 } } })).toThrow(/endpoints\.openai: provider "openai" has no balance route/);
    expect(() => balance({ endpoints: { kimi: { minBalance: -1 } } })).toThrow(/endpoints\.kimi\.minBalance/);
  });
});
