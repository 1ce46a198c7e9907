/**
 * A mixed run whose usage report the docs quote: failover, key rotation on 429, a cache hit and
 * a degraded answer. Run with `npx vitest run plugins/quota/test/sample-report.test.ts` to see it.
 */
import { afterEach, expect, it } from 'vitest';
import { cache } from '../../cache/src/index.js';
import { degrade } from '../../degrade/src/index.js';
import { formatUsageReport, getUsage, quota } from '../src/index.js';
import { answer, ask, failure, rig, upstream, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
});

it('prints a usage and cost report for a mixed run', async () => {
  let openaiDown = false;
  const openai = await upstream(({ key, n, model }) => {
    if (openaiDown) return failure(503, 'overloaded');
    if (key === 'sk-oa-0' && n === 3) return failure(429, 'rate limited', undefined, { 'retry-after': '20' });
    return { body: answer('ok', model, { prompt_tokens: 1200, completion_tokens: 300, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 512 } } as never) };
  });
  let claudeDown = false;
  const claude = await upstream(({ model }) => (claudeDown ? failure(529, 'overloaded') : { body: answer('ok', model, { prompt_tokens: 1300, completion_tokens: 420, total_tokens: 1720 }) }));
  const local = await upstream(({ model }) => ({ body: answer('ok', model, { prompt_tokens: 1250, completion_tokens: 380, total_tokens: 1630 }) }));
  current = rig(
    [
      { name: 'openai', provider: 'test', baseUrl: openai.server.url, apiKeys: ['sk-oa-0', 'sk-oa-1'] },
      { name: 'claude', provider: 'test', baseUrl: claude.server.url, apiKey: 'sk-ant' },
      { name: 'ollama', provider: 'test', baseUrl: local.server.url },
    ],
    { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
    [quota({ prices: { 'qwen2.5:7b': { input: 0, output: 0 } }, budgets: [{ model: 'chat', spendPerDay: 5 }] }), cache(), degrade({ levels: [{ type: 'endpoint', endpoint: 'ollama', model: 'qwen2.5:7b' }] })],
    [openai, claude, local],
  );
  const { pipeline, clock } = current;
  const send = async (...args: Parameters<typeof pipeline.chat>) => {
    await pipeline.chat(...args);
    await clock.advance(4_000);
  };
  const search = { switchyard: { tags: { team: 'search' } } };
  const support = { switchyard: { tags: { team: 'support' } } };
  await send(ask('q1', search));
  await send(ask('q2', support));
  await send(ask('q3', search)); // key 0 answers 429: rotated to key 1
  await send(ask('q1', search)); // cache hit
  openaiDown = true;
  await send(ask('q4', support)); // failover to claude
  await send(ask('q5', search));
  claudeDown = true;
  await send(ask('q6', support)); // degraded to the local model
  const report = getUsage(pipeline);
  console.log(formatUsageReport(report));
  expect(report.total).toMatchObject({ requests: 6, failures: 5 });
  expect(report.cacheHits).toBe(1);
  expect(report.degraded).toEqual({ 'endpoint:ollama/qwen2.5:7b': 1 });
  expect(report.byDeployment['openai/gpt-4o-mini']).toMatchObject({ requests: 3, failures: 4 });
  expect(report.byDeployment['claude/claude-sonnet-4-5']).toMatchObject({ requests: 2, failures: 1 });
  expect(report.byDeployment['ollama/qwen2.5:7b']).toMatchObject({ requests: 1, costUsd: 0 });
});
