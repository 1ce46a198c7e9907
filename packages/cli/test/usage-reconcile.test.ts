/**
 * `switchyard usage --reconcile`: a usage log written by the real quota plugin (a pipeline on
 * virtual time, loopback vendors, one call that timed out before its headers and was billed as
 * an estimate) against vendor bills in the formats users export: OpenAI's Costs API JSON,
 * Anthropic's cost report, DeepSeek's console CSV in CNY, and the generic table.
 */
import { SERVICE } from '@switchyard/contracts';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createPipeline, getService, VirtualClock } from '@switchyard/core';
import { providers } from '@switchyard/provider-openai';
import { quota } from '@switchyard/plugin-quota';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { completion, startLoopback, type Loopback } from '../../core/test/support/loopback.js';
import { main } from '../src/index.js';
import { capture, configFile, removeTempDirs } from './support.js';

const DAY1 = '2026-12-01';
const DAY2 = '2026-12-02';
let log = '';
let dir = '';
const vendors: Loopback[] = [];

/** Every answer reports 1000 prompt and 500 completion tokens: $0.20 at the prices below. */
const usage = { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500 };
const price = { input: 100, output: 200 };

beforeAll(async () => {
  const answering = (silentOn?: string) => (_req: unknown, res: import('node:http').ServerResponse, body: string) => {
    if (JSON.parse(body).messages[0].content === silentOn) return new Promise<void>(() => undefined); // never any headers
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...(completion('ok') as object), usage }));
  };
  const openai = await startLoopback(answering('slow') as never);
  const deepseek = await startLoopback(answering() as never);
  vendors.push(openai, deepseek);
  dir = path.dirname(await configFile('# the usage log lives here'));
  log = path.join(dir, 'usage.jsonl');
  const clock = new VirtualClock(Date.parse(`${DAY1}T10:00:00Z`));
  const pipeline = createPipeline({
    endpoints: [
      { name: 'openai', provider: 'openai', baseUrl: openai.url, apiKey: 'sk-openai-test-0001' },
      { name: 'ds', provider: 'deepseek', baseUrl: deepseek.url, apiKey: 'sk-deepseek-test-0001' },
    ],
    models: { chat: [{ endpoint: 'openai', model: 'gpt-x', price }, { endpoint: 'ds', model: 'deepseek-chat', price }], cheap: [{ endpoint: 'ds', model: 'deepseek-chat', price }] },
    providers,
    clock,
    plugins: [quota({ ledger: { log } })],
  });
  const ask = (content: string, model = 'chat') => ({ model, messages: [{ role: 'user' as const, content }] });
  await pipeline.chat(ask('one'));
  await pipeline.chat(ask('two'));
  // Timed out before its headers after 30 s: 1 input token + 30 s × 50 tokens/s, $0.3001 estimated; ds answers.
  const slow = pipeline.chat(ask('slow'));
  await vi.waitFor(() => expect(openai.requests).toHaveLength(3), { timeout: 5_000, interval: 5 });
  await clock.advance(30_000);
  await slow;
  await clock.advance(86_400_000);
  await pipeline.chat(ask('three'));
  await pipeline.chat(ask('four', 'cheap'));
  await getService(pipeline, SERVICE.usage)!.flush();
  await pipeline.close();
});

async function reconcile(bill: string, name: string, ...args: string[]) {
  const file = path.join(dir, name);
  await writeFile(file, bill);
  const out = capture();
  const code = await main(['usage', '--log', log, '--reconcile', file, ...args], out.io);
  return { code, out: out.out, err: out.err, json: () => JSON.parse(out.out) };
}

describe('usage --reconcile', () => {
  it("an OpenAI Costs API export: per day, the ledger's billed and estimated cost against the vendor's charge", async () => {
    const bucket = (day: string, ...values: number[]) => ({ object: 'bucket', start_time: Date.parse(`${day}T00:00:00Z`) / 1000, end_time: Date.parse(`${day}T00:00:00Z`) / 1000 + 86_400, results: values.map((value) => ({ object: 'organization.costs.result', amount: { value, currency: 'usd' }, line_item: null, project_id: null })) });
    const page = { object: 'page', data: [bucket(DAY1, 0.7, 0.05), bucket(DAY2, 0.2)], has_more: false, next_page: null };
    const r = await reconcile(JSON.stringify(page), 'openai-costs.json', '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const { format, lines, totals } = r.json();
    expect(format).toBe('openai-costs');
    expect(lines).toEqual([
      { vendor: 'openai', day: DAY1, ledger: { billedUsd: 0.4, estimatedUsd: 0.3001, totalUsd: 0.7001 }, vendorUsd: 0.75, differenceUsd: 0.0499, differencePercent: 6.65 },
      { vendor: 'openai', day: DAY2, ledger: { billedUsd: 0.2, estimatedUsd: 0, totalUsd: 0.2 }, vendorUsd: 0.2, differenceUsd: 0, differencePercent: 0 },
    ]);
    expect(totals).toEqual([{ vendor: 'openai', day: `${DAY1}..${DAY2}`, ledger: { billedUsd: 0.6, estimatedUsd: 0.3001, totalUsd: 0.9001 }, vendorUsd: 0.95, differenceUsd: 0.0499, differencePercent: 5.25 }]);
    const table = await reconcile(JSON.stringify(page), 'openai-costs.json');
    expect(table.out).toMatch(/openai\s+2026-12-01\s+\$0\.400000\s+\$0\.300100\s+\$0\.700100\s+\$0\.750000\s+\+\$0\.049900\s+\+6\.65 %/);
    expect(table.out).toMatch(/openai\s+total 2026-12-01\.\.2026-12-02/);
  });

  it("DeepSeek's console CSV in CNY: converted with --fx, refused without a rate", async () => {
    const csv = '\uFEFF日期,模型,金额,币种\n2026-12-01,deepseek-chat,1.43,CNY\n2026-12-02,deepseek-chat,¥1.40,CNY\n';
    const refused = await reconcile(csv, 'deepseek.csv', '--vendor', 'deepseek');
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('the amount is in CNY; pass --fx CNY=<USD per CNY>');
    expect(refused.err).toContain('SWITCHYARD_ERR_VENDOR_BILL');
    const r = await reconcile(csv, 'deepseek.csv', '--vendor', 'deepseek', '--fx', 'CNY=0.14', '--json');
    expect(r.code).toBe(0);
    // The provider id matches the `ds` endpoint: its ledger has $0.20 a day.
    expect(r.json().lines.map((l: { day: string; vendorUsd: number; ledger: { totalUsd: number }; differenceUsd: number }) => [l.day, l.ledger.totalUsd, l.vendorUsd, l.differenceUsd])).toEqual([
      [DAY1, 0.2, 0.2002, 0.0002],
      [DAY2, 0.2, 0.196, -0.004],
    ]);
  });

  it('the generic table names the vendor per row (an endpoint name or a provider id); Anthropic\'s cost report is in cents', async () => {
    const generic = await reconcile(`date,vendor,cost_usd\n${DAY1},openai,0.70\n${DAY1},ds,0.20\n`, 'generic.csv', '--json');
    expect(generic.json().lines.map((l: { vendor: string; differenceUsd: number }) => [l.vendor, l.differenceUsd])).toEqual([
      ['ds', 0],
      ['openai', -0.0001],
    ]);
    const report = { data: [{ starting_at: `${DAY1}T00:00:00Z`, ending_at: `${DAY2}T00:00:00Z`, results: [{ amount: '123.45', currency: 'USD', cost_type: 'tokens', model: 'claude-sonnet-4-5' }] }], has_more: false, next_page: null };
    const anthropic = await reconcile(JSON.stringify(report), 'anthropic.json', '--json');
    expect(anthropic.json()).toMatchObject({ format: 'anthropic-cost-report', lines: [{ vendor: 'anthropic', day: DAY1, vendorUsd: 1.2345, ledger: { totalUsd: 0 }, differenceUsd: 1.2345 }] });
  });

  it('a bill it cannot read is a coded error naming the file and what is missing', async () => {
    const noCost = await reconcile('date,vendor,tokens\n2026-12-01,openai,5\n', 'bad.csv');
    expect(noCost.code).toBe(1);
    expect(noCost.err).toContain('has no cost column (columns: date, vendor, tokens');
    const noVendor = await reconcile('date,cost_usd\n2026-12-01,5\n', 'novendor.csv');
    expect(noVendor.err).toContain('names no vendor');
    const badDay = await reconcile('date,vendor,cost_usd\nyesterday,openai,5\n', 'badday.csv');
    expect(badDay.err).toContain('line 2 date: expected a day');
    const badFx = capture();
    expect(await main(['usage', '--log', log, '--reconcile', path.join(dir, 'bad.csv'), '--fx', 'yuan'], badFx.io)).toBe(2);
  });
});

afterAll(async () => {
  await removeTempDirs();
  await Promise.all(vendors.splice(0).map((v) => v.close()));
});
