import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchyardError } from '@switchyard/core';
import { quota } from '../src/index.js';
import { answer, ask, gatedUpstream, rig, upstream, type Rig } from './harness.js';

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

async function single(options: Parameters<typeof quota>[0], usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number }) {
  const up = await upstream(({ model }) => ({ body: answer('ok', model, usage) }));
  current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKey: 'sk-a' }], { chat: [{ endpoint: 'a', model: 'm0' }] }, [quota(options)], [up]);
  return { up, ...current };
}

describe('budget windows', () => {
  it('requests per minute: blocks before the call and opens again in the next minute', async () => {
    const { pipeline, clock, up } = await single({ budgets: [{ endpoint: 'a', rpm: 2 }] });
    await pipeline.chat(ask());
    await pipeline.chat(ask());
    const err = await pipeline.chat(ask()).catch((e) => e);
    expect(isSwitchyardError(err)).toBe(true);
    expect(err.kind).toBe('budget-exhausted');
    expect(err.code).toBe('SWITCHYARD_ERR_BUDGET_EXHAUSTED');
    expect(err.message).toMatch(/budget exhausted for model "chat".*endpoint:a rpm used 2 of 2 \(resets in 1m\)/);
    expect(err.status).toBe(429);
    expect(up.seen).toHaveLength(2);
    await clock.advance(60_000);
    await expect(pipeline.chat(ask())).resolves.toMatchObject({ choices: [{ message: { content: 'ok' } }] });
    expect(up.seen).toHaveLength(3);
  });

  it('tokens per minute count prompt and completion tokens; a request holds its upper bound until it ends', async () => {
    // ask() with max_tokens 1: an upper bound of 14 tokens (its strings at half a token per byte, plus 1 output); the vendor reports 6.
    const { pipeline, clock, up } = await single({ budgets: [{ model: 'chat', tpm: 30 }] });
    const small = () => ask('hi', { max_tokens: 1 });
    for (let i = 0; i < 3; i++) await pipeline.chat(small());
    const err = await pipeline.chat(small()).catch((e) => e);
    expect(err.kind).toBe('budget-exhausted');
    expect(err.message).toContain('model:chat tpm used 18 of 30, this request may use up to 14');
    expect(up.seen).toHaveLength(3);
    // Without max_tokens the bound takes tokenBound.reserveOutputTokens of output: more than the whole limit.
    await clock.advance(60_000);
    await expect(pipeline.chat(ask())).rejects.toMatchObject({ kind: 'budget-exhausted', message: expect.stringContaining('may use up to 1037') });
    await pipeline.chat(small());
    expect(up.seen).toHaveLength(4);
  });

  it('concurrent requests hold their bounds: no more start than the tpm limit takes, and the holds go back when they end', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const up = await gatedUpstream(gate);
    current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKey: 'sk-a' }], { chat: [{ endpoint: 'a', model: 'm0' }] }, [quota({ budgets: [{ endpoint: 'a', tpm: 30 }] })], [up]);
    const calls = Array.from({ length: 10 }, () => current!.pipeline.chat(ask('hi', { max_tokens: 1 })).then(() => 'ok', (e: { kind: string }) => e.kind));
    await expect.poll(() => up.waiting()).toBe(2);
    release();
    const outcomes = await Promise.all(calls);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(2);
    expect(outcomes.filter((o) => o === 'budget-exhausted')).toHaveLength(8);
    // Settled to what they used (2 × 6): one more fits.
    await expect(current!.pipeline.chat(ask('hi', { max_tokens: 1 }))).resolves.toBeDefined();
  });

  // 6 tokens at $1000 per million = $0.006 an answer; the clock starts at 23:00 UTC on Jan 31.
  const prices = { m0: { input: 1000, output: 1000 } };

  it('spend per day rolls over at UTC midnight', async () => {
    const { pipeline, clock, up } = await single({ prices, budgets: [{ endpoint: 'a', spendPerDay: 0.01 }] });
    await pipeline.chat(ask());
    await pipeline.chat(ask());
    const err = await pipeline.chat(ask()).catch((e) => e);
    expect(err.kind).toBe('budget-exhausted');
    expect(err.message).toContain('endpoint:a spendPerDay used $0.012 of $0.01 (resets in 1h)');
    expect(err.retryAfterMs).toBe(3_600_000);
    await clock.advance(3_599_000);
    await expect(pipeline.chat(ask())).rejects.toMatchObject({ kind: 'budget-exhausted' });
    await clock.advance(1_000);
    await pipeline.chat(ask());
    expect(up.seen).toHaveLength(3);
  });

  it('spend per month holds a tag until the first of the next month; other traffic flows', async () => {
    const { pipeline, clock } = await single({ prices, budgets: [{ tag: 'team=search', spendPerMonth: 0.015 }] });
    const tagged = ask('hi', { switchyard: { tags: { team: 'search' } } });
    for (let i = 0; i < 3; i++) await pipeline.chat(tagged);
    const err = await pipeline.chat(tagged).catch((e) => e);
    expect(err.kind).toBe('budget-exhausted');
    expect(err.message).toContain('tag:team=search spendPerMonth used $0.018 of $0.015');
    await expect(pipeline.chat(ask())).resolves.toBeDefined();
    await expect(pipeline.chat(ask('x', { switchyard: { tags: { team: 'ads' } } }))).resolves.toBeDefined();
    await clock.advance(3_600_000);
    await expect(pipeline.chat(tagged)).resolves.toBeDefined();
  });

  it('quota:threshold fires exactly once per crossing per window', async () => {
    const { pipeline, clock } = await single({ budgets: [{ endpoint: 'a', rpm: 5 }], thresholds: [0.4, 1] });
    const events: string[] = [];
    pipeline.events.on('quota:threshold', (e) => events.push(`${e.scope} ${e.limit} ${e.level} ${e.used}/${e.max}`));
    for (let i = 0; i < 5; i++) await pipeline.chat(ask());
    await pipeline.chat(ask()).catch(() => undefined);
    expect(events).toEqual(['endpoint:a rpm 0.4 2/5', 'endpoint:a rpm 1 5/5']);
    await clock.advance(60_000);
    await pipeline.chat(ask());
    expect(events).toHaveLength(2);
    await pipeline.chat(ask());
    expect(events).toEqual(['endpoint:a rpm 0.4 2/5', 'endpoint:a rpm 1 5/5', 'endpoint:a rpm 0.4 2/5']);
  });

  it('a key budget takes only that key out of rotation', async () => {
    const up = await upstream(({ model }) => ({ body: answer('ok', model) }));
    current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url, apiKeys: ['sk-0', 'sk-1'] }], { chat: [{ endpoint: 'a', model: 'm0' }] }, [quota({ budgets: [{ key: 'a#0', rpm: 1 }] })], [up]);
    await current.pipeline.chat(ask());
    await current.pipeline.chat(ask());
    expect(up.seen.map((s) => s.key)).toEqual(['sk-0', 'sk-1']);
  });
});

describe('option validation', () => {
  it('rejects negative prices with a coded error naming the field', () => {
    let err: unknown;
    try {
      quota({ prices: { 'gpt-4o': { input: -1, output: 10 } } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_PLUGIN_OPTIONS', path: 'prices.gpt-4o.input' });
    expect((err as Error).message).toContain('prices cannot be negative');
  });

  it('rejects a budget with two scopes or no limit', () => {
    expect(() => quota({ budgets: [{ endpoint: 'a', model: 'chat', rpm: 1 }] })).toThrow(/exactly one of endpoint, key, model, tag/);
    expect(() => quota({ budgets: [{ endpoint: 'a' }] })).toThrow(/at least one of rpm, tpm, spendPerDay, spendPerMonth/);
    expect(() => quota({ budgets: [{ tag: 'team', rpm: 1 }] })).toThrow(/budgets\.0\.tag.*name=value/);
  });

  it.each([
    [{ endpoint: 'nope', rpm: 1 }, 'budgets[0].endpoint', /unknown endpoint "nope" \(known: "a"\)/],
    [{ key: 'a#3', rpm: 1 }, 'budgets[0].key', /unknown key "a#3" \(known: "a#0"\)/],
    [{ model: 'gpt', rpm: 1 }, 'budgets[0].model', /unknown model "gpt" \(known: "chat"\)/],
  ])('checks %j against the pipeline at apply time', async (budget, path, message) => {
    const up = await upstream();
    let err: unknown;
    try {
      current = rig([{ name: 'a', provider: 'test', baseUrl: up.server.url }], { chat: [{ endpoint: 'a', model: 'm0' }] }, [quota({ budgets: [budget] })], [up]);
    } catch (e) {
      err = e;
    }
    await up.server.close();
    expect(err).toMatchObject({ kind: 'config', code: 'SWITCHYARD_ERR_CONFIG', path });
    expect((err as Error).message).toMatch(message);
  });
});
