import { afterEach, describe, expect, it } from 'vitest';
import { definePlugin, STAGE, type AttemptOutcome } from '../src/index.js';
import { completion } from './support/loopback.js';
import { hello, pipelineOver, type Fixture } from './support/fixture-pipeline.js';
import type { Handler } from './support/loopback.js';

const ok = (text: string): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(completion(text)));
};
const down: Handler = (_req, res) => {
  res.writeHead(503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: 'down' } }));
};

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

describe('failover hook', () => {
  it('refines the remaining candidates, in STAGE order, before the next one is taken', async () => {
    const seen: { tap: string; remaining: string[]; failed: string }[] = [];
    const plugin = definePlugin({
      name: 'failover-probe',
      apply(p) {
        p.hooks.failover.tapPromise({ name: 'order', stage: STAGE.ORDER }, async (remaining, failed: AttemptOutcome) => {
          seen.push({ tap: 'order', remaining: remaining.map((c) => c.endpoint.name), failed: failed.candidate.endpoint.name });
          return [...remaining].reverse();
        });
        p.hooks.failover.tapPromise({ name: 'filter', stage: STAGE.FILTER }, async (remaining, failed: AttemptOutcome) => {
          seen.push({ tap: 'filter', remaining: remaining.map((c) => c.endpoint.name), failed: failed.candidate.endpoint.name });
          return remaining.filter((c) => c.endpoint.name !== 'u1');
        });
      },
    });
    fx = await pipelineOver([down, ok('one'), ok('two'), ok('three')], { plugins: [plugin()] });
    const r = await fx.pipeline.chat(hello);
    expect(seen).toEqual([
      { tap: 'filter', remaining: ['u1', 'u2', 'u3'], failed: 'u0' },
      { tap: 'order', remaining: ['u2', 'u3'], failed: 'u0' },
    ]);
    // u1 filtered out, the rest reversed: u3 answers.
    expect(r.choices[0].message.content).toBe('three');
    expect(fx.servers[1].requests).toHaveLength(0);
    expect(fx.servers[2].requests).toHaveLength(0);
  });

  it('does not run when the retry stage fails the request', async () => {
    let runs = 0;
    const plugin = definePlugin({
      name: 'fail-fast',
      apply(p) {
        p.hooks.retry.tapPromise('fail-fast', async () => ({ action: 'fail', reason: 'test' }));
        p.hooks.failover.tapPromise('count', async (remaining) => {
          runs++;
          return remaining;
        });
      },
    });
    fx = await pipelineOver([down, ok('one')], { plugins: [plugin()] });
    await expect(fx.pipeline.chat(hello)).rejects.toMatchObject({ kind: 'all-candidates-failed' });
    expect(runs).toBe(0);
    expect(fx.servers[1].requests).toHaveLength(0);
  });
});
