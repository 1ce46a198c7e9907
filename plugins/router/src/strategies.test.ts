import { type Candidate, type DeploymentConfig } from '@switchyard/core';
import { candidatesForDeployment } from '@switchyard/core/internal';
import { describe, expect, it } from 'vitest';
import { costAware, requestCost, tiersOf } from './strategies.js';

const endpoint = (name: string) => ({ name, provider: 'test', baseUrl: `http://${name}/v1` });
const candidate = (d: Partial<DeploymentConfig> & { endpoint: string }): Candidate => candidatesForDeployment(endpoint(d.endpoint), { model: 'm', ...d })[0];
const tokens = { inputTokens: 1_000, outputTokens: 500 };

describe('costAware', () => {
  const premium = candidate({ endpoint: 'premium', priority: 0, price: { input: 10, output: 30 } });
  const mid = candidate({ endpoint: 'mid', priority: 1, price: { input: 1, output: 3 } });
  const unpriced = candidate({ endpoint: 'unpriced', priority: 2 });
  const cheap = candidate({ endpoint: 'cheap', priority: 3, price: { input: 0.1, output: 0.2 } });

  it('orders by price at tolerance 0 and by quality (priority) at 1', () => {
    const all = [premium, mid, unpriced, cheap];
    expect(costAware(all, 0, tokens).map((c) => c.endpoint.name)).toEqual(['cheap', 'mid', 'premium', 'unpriced']);
    expect(costAware(all, 1, tokens).map((c) => c.endpoint.name)).toEqual(['premium', 'mid', 'unpriced', 'cheap']);
  });

  it('trades both in between: a much cheaper, slightly worse model wins at a middle tolerance', () => {
    expect(costAware([premium, mid], 0.5, tokens)[0]).toBe(mid);
    expect(costAware([premium, mid], 0.95, tokens)[0]).toBe(premium);
  });

  it('prices input and output tokens per million', () => {
    expect(requestCost(premium, tokens)).toBeCloseTo((10 * 1_000 + 30 * 500) / 1e6, 12);
    expect(requestCost(unpriced, tokens)).toBeUndefined();
  });
});

describe('tiersOf', () => {
  it('groups by priority ascending and keeps the given order inside a tier', () => {
    const a = candidate({ endpoint: 'a', priority: 2 });
    const b = candidate({ endpoint: 'b', priority: 0 });
    const c = candidate({ endpoint: 'c', priority: 2 });
    expect(tiersOf([a, b, c])).toEqual([[b], [a, c]]);
  });
});
