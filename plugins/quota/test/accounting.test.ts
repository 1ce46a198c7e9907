import { afterEach, describe, expect, it } from 'vitest';
import { setRequestOrigin, OPENAI_RESPONSES } from '@switchyard/core/wire';
import { billAttempt, costOf, defaultPrice, formatUsageReport, getUsage, priceFor, quota } from '../src/index.js';
import { answer, ask, failure, rig, upstream, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('cost attribution', () => {
  it('bills the deployment that answered; the failing primary is counted as failures, never billed', async () => {
    const primary = await upstream(() => failure(503, 'overloaded'));
    const backup = await upstream(({ model }) => ({ body: answer('ok', model, { prompt_tokens: 1000, completion_tokens: 500, total_tokens: 1500, prompt_tokens_details: { cached_tokens: 400 } } as never) }));
    current = rig(
      [
        { name: 'openai', provider: 'test', baseUrl: primary.server.url, apiKey: 'sk-1' },
        { name: 'claude', provider: 'test', baseUrl: backup.server.url, apiKey: 'sk-2' },
      ],
      { chat: [{ endpoint: 'openai', model: 'gpt-4o' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
      [quota()],
      [primary, backup],
    );
    await current.pipeline.chat(ask('hi', { switchyard: { tags: { team: 'search' } } }));
    await current.pipeline.chat(ask());
    const usage = getUsage(current.pipeline);
    // Sonnet 4.5 defaults: $3 input, $0.30 cached input, $15 output per million tokens.
    const each = (600 * 3 + 400 * 0.3 + 500 * 15) / 1e6;
    expect(usage.byDeployment['openai/gpt-4o']).toEqual({ requests: 0, failures: 2, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 });
    expect(usage.byDeployment['claude/claude-sonnet-4-5']).toMatchObject({ requests: 2, failures: 0, inputTokens: 2000, outputTokens: 1000, cachedTokens: 800 });
    expect(usage.byDeployment['claude/claude-sonnet-4-5'].costUsd).toBeCloseTo(2 * each, 12);
    expect(usage.byModel.chat).toMatchObject({ requests: 2, failures: 2 });
    expect(usage.byModel.chat.costUsd).toBeCloseTo(2 * each, 12);
    expect(usage.byKey['openai#0'].costUsd).toBe(0);
    expect(usage.byEndpoint.claude.requests).toBe(2);
    expect(usage.byTag['team=search']).toMatchObject({ requests: 1, failures: 1 });
    expect(usage.byTag['team=search'].costUsd).toBeCloseTo(each, 12);
    expect(usage.unpriced).toEqual([]);
    const text = formatUsageReport(usage);
    expect(text).toContain('claude/claude-sonnet-4-5');
    // Its columns say what they count: answers and failed attempts, not failed requests.
    expect(text).toMatch(/^deployment\s+answers\s+failed attempts\s+input tok/m);
    expect(text).not.toContain('sk-');
  });

  it('a deployment price beats the option table, which beats the built-in table; unknown models are listed as unpriced', async () => {
    const up = await upstream(({ model }) => ({ body: answer('ok', model, { prompt_tokens: 1_000_000, completion_tokens: 0, total_tokens: 1_000_000 }) }));
    current = rig(
      [{ name: 'a', provider: 'test', baseUrl: up.server.url }],
      {
        chat: [{ endpoint: 'a', model: 'gpt-4o', price: { input: 7, output: 7 } }],
        mini: [{ endpoint: 'a', model: 'gpt-4o-mini' }],
        local: [{ endpoint: 'a', model: 'qwen2.5:7b' }],
      },
      [quota({ prices: { 'gpt-4o': { input: 100, output: 100 }, 'gpt-4o-mini': { input: 1, output: 1 } } })],
      [up],
    );
    await current.pipeline.chat(ask());
    await current.pipeline.chat({ ...ask(), model: 'mini' });
    await current.pipeline.chat({ ...ask(), model: 'local' });
    const usage = getUsage(current.pipeline);
    expect(usage.byModel.chat.costUsd).toBeCloseTo(7);
    expect(usage.byModel.mini.costUsd).toBeCloseTo(1);
    expect(usage.byModel.local.costUsd).toBe(0);
    expect(usage.unpriced).toEqual(['a/qwen2.5:7b']);
  });

  it('getUsage on a pipeline without the plugin is a coded error', async () => {
    const up = await upstream();
    current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url }], { chat: [{ endpoint: 'a', model: 'm' }] }, [], [up]);
    expect(() => getUsage(current!.pipeline)).toThrow(/plugin-quota is not applied/);
  });
});

describe('price table', () => {
  it('finds dated and vendor-prefixed variants of built-in models', () => {
    expect(defaultPrice('gpt-4o-mini-2024-07-18')).toEqual(defaultPrice('gpt-4o-mini'));
    expect(defaultPrice('gpt-4o-2024-08-06')?.input).toBe(2.5);
    expect(defaultPrice('claude-sonnet-4-5-20250929')?.output).toBe(15);
    expect(defaultPrice('models/gemini-2.5-flash')?.input).toBe(0.3);
    expect(defaultPrice('llama3.1:8b')).toBeUndefined();
  });

  it('bills a Claude Sonnet or Gemini 2.5 Pro prompt past 200k tokens at the long-context rates, every token of it', () => {
    const sonnet = defaultPrice('claude-sonnet-4-5-20250929');
    expect(costOf({ inputTokens: 200_000, outputTokens: 1_000, cachedTokens: 0 }, sonnet)).toBeCloseTo((200_000 * 3 + 1_000 * 15) / 1e6, 12);
    expect(costOf({ inputTokens: 250_000, outputTokens: 1_000, cachedTokens: 50_000 }, sonnet)).toBeCloseTo((200_000 * 6 + 50_000 * 0.6 + 1_000 * 22.5) / 1e6, 12);
    expect(costOf({ inputTokens: 300_000, outputTokens: 2_000, cachedTokens: 0 }, defaultPrice('gemini-2.5-pro'))).toBeCloseTo((300_000 * 2.5 + 2_000 * 15) / 1e6, 12);
    expect(defaultPrice('claude-haiku-4-5')?.longContext).toBeUndefined();
  });

  it('charges cached prompt tokens at the cached rate, or at the input rate when there is none', () => {
    const tokens = { inputTokens: 1000, outputTokens: 100, cachedTokens: 600 };
    expect(costOf(tokens, { input: 2, output: 10, cachedInput: 0.5 })).toBeCloseTo((400 * 2 + 600 * 0.5 + 100 * 10) / 1e6, 12);
    expect(costOf(tokens, { input: 2, output: 10 })).toBeCloseTo((1000 * 2 + 100 * 10) / 1e6, 12);
    expect(costOf(tokens, undefined)).toBe(0);
  });

  it("charges prompt-cache writes at the price's cacheWrite (Anthropic's 1.25×), reads at cachedInput, and the rest at the input rate", () => {
    // Anthropic reports 321 fresh + 100 read + 200 written; the unified usage counts all 621 as prompt tokens.
    const tokens = { inputTokens: 621, outputTokens: 42, cachedTokens: 100, cacheWriteTokens: 200 };
    const sonnet = defaultPrice('claude-sonnet-4-5-20250929')!;
    expect(sonnet).toMatchObject({ input: 3, cachedInput: 0.3, cacheWrite: 3.75 });
    expect(costOf(tokens, sonnet)).toBeCloseTo((321 * 3 + 100 * 0.3 + 200 * 3.75 + 42 * 15) / 1e6, 12);
    // Without a cacheWrite price a write costs what input costs; counts that overlap never bill twice.
    expect(costOf(tokens, { input: 2, output: 10, cachedInput: 0.5 })).toBeCloseTo((521 * 2 + 100 * 0.5 + 42 * 10) / 1e6, 12);
    expect(costOf({ inputTokens: 100, outputTokens: 0, cachedTokens: 80, cacheWriteTokens: 80 }, sonnet)).toBeCloseTo((80 * 0.3 + 20 * 3.75) / 1e6, 12);
  });
});

describe('per-call fees of hosted tools', () => {
  const candidate = (model: string, provider = 'openai') => ({ deployment: {} as never, deploymentId: `e/${model}`, model, provider });
  const outcome = (calls: Record<string, number>) => ({ ok: true, usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, server_tool_calls: calls } }) as never;
  const offering = (type: string) => {
    const request = { model: 'm', messages: [] };
    setRequestOrigin(request, { format: OPENAI_RESPONSES, body: { tools: [{ type }] } });
    return request as never;
  };

  it('OpenAI web_search_preview is $25 / 1,000 on non-reasoning models, $10 on reasoning ones; web_search $10 on both', () => {
    expect(priceFor(candidate('gpt-4o'), {})!.perCall).toMatchObject({ web_search: 0.01, web_search_preview: 0.025 });
    for (const reasoner of ['gpt-5', 'gpt-5-mini-2025-08-07', 'o3', 'o4-mini', 'azure/o3-mini']) expect(priceFor(candidate(reasoner), {})!.perCall).toMatchObject({ web_search: 0.01, web_search_preview: 0.01 });
    expect(priceFor(candidate('gpt-5-chat-latest'), {})!.perCall).toMatchObject({ web_search_preview: 0.025 });
  });

  it('web_search_call items (reported as web_search) bill at the entry of the variant the request offered', () => {
    const price = priceFor(candidate('gpt-4o'), {});
    const bill = (request: never) => billAttempt(outcome({ web_search: 4 }), { estimatedInputTokens: 0, price, outputTokensPerSecond: 50, request }).costUsd;
    expect(bill(offering('web_search_preview'))).toBeCloseTo(0.1, 12);
    expect(bill(offering('web_search_preview_2025_03_11'))).toBeCloseTo(0.1, 12);
    expect(bill(offering('web_search'))).toBeCloseTo(0.04, 12);
    // Nothing offered that we know of: the kind's own entry.
    expect(billAttempt(outcome({ web_search: 4 }), { estimatedInputTokens: 0, price, outputTokensPerSecond: 50 }).costUsd).toBeCloseTo(0.04, 12);
  });
});
