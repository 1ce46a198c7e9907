/**
 * A call that timed out before the vendor's response headers is billed as an estimate: the
 * vendor worked on it (and bills it). Input from the request, output from the time it had and
 * the deployment's tokens per second (capped by max_tokens); virtual time, real loopback vendors.
 */
import { createPipeline, VirtualClock, type Pipeline, type SwitchyardEvents } from '@switchyard/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { DEFAULT_OUTPUT_TOKENS_PER_SECOND, getUsage, quota, type QuotaOptionsInput } from '../src/index.js';
import { answer, ask } from './harness.js';

const servers: Loopback[] = [];
let pipeline: Pipeline | undefined;
afterEach(async () => {
  await pipeline?.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

type Billed = SwitchyardEvents['usage:billed'][0];

async function setup(options: QuotaOptionsInput) {
  // Takes the request and never answers: no response headers, ever.
  const silent = await startLoopback(() => new Promise<void>(() => undefined));
  const backup = await startLoopback((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer('from backup', JSON.parse(body).model)));
  });
  servers.push(silent, backup);
  const clock = new VirtualClock(Date.UTC(2026, 11, 1, 12));
  const price = { input: 1000, output: 2000 }; // USD per 1M tokens
  pipeline = createPipeline({
    endpoints: [
      { name: 'silent', provider: 'test', baseUrl: silent.url },
      { name: 'backup', provider: 'test', baseUrl: backup.url },
      { name: 'gone', provider: 'test', baseUrl: 'http://127.0.0.1:9/v1' },
    ],
    models: {
      chat: [{ endpoint: 'silent', model: 'slow-model', price }, { endpoint: 'backup', model: 'b', price }],
      other: [{ endpoint: 'silent', model: 'other-model', price }, { endpoint: 'backup', model: 'b', price }],
      refused: [{ endpoint: 'gone', model: 'g', price }, { endpoint: 'backup', model: 'b', price }],
    },
    providers: [testProvider],
    clock,
    plugins: [quota(options)],
  });
  const billed: Billed[] = [];
  pipeline.events.on('usage:billed', (b) => billed.push(b));
  const p = pipeline;
  /** One request whose first attempt waits for headers until the 30 s limit passes on the clock. */
  const timedOut = async (request: ReturnType<typeof ask>) => {
    const seen = silent.requests.length;
    const pending = p.chat(request);
    await vi.waitFor(() => expect(silent.requests.length).toBeGreaterThan(seen), { timeout: 5_000, interval: 5 });
    await clock.advance(30_000); // the non-streaming first-byte limit
    return pending;
  };
  return { pipeline: p, billed, timedOut, silent };
}

describe('a call that timed out before the response headers', () => {
  it('is billed as an elapsed estimate: the request\'s input plus the time × tokens per second, capped by max_tokens', async () => {
    const { pipeline, billed, timedOut } = await setup({ estimates: { deployments: { 'silent/slow-model': 20 } } });
    const prompt = 'x'.repeat(400); // 100 input tokens
    expect((await timedOut(ask(prompt))).choices[0].message.content).toBe('from backup');
    // 30 s at this deployment's 20 tokens/s: 600 output tokens the vendor wrote and bills.
    expect(billed[0]).toMatchObject({ attempt: 1, estimated: true, inputTokens: 100, outputTokens: 600, cachedTokens: 0 });
    expect(billed[0].candidate.deploymentId).toBe('silent/slow-model');
    expect(billed[0].costUsd).toBeCloseTo((100 * 1000 + 600 * 2000) / 1e6, 10);
    expect(billed[1]).toMatchObject({ estimated: false, inputTokens: 4, outputTokens: 2 });

    // The default speed for a deployment without its own, and max_tokens caps what could be written.
    await timedOut({ ...ask(prompt), model: 'other' });
    expect(billed[2]).toMatchObject({ estimated: true, inputTokens: 100, outputTokens: 30 * DEFAULT_OUTPUT_TOKENS_PER_SECOND });
    await timedOut({ ...ask(prompt), max_tokens: 64 });
    expect(billed[4]).toMatchObject({ estimated: true, outputTokens: 64 });
    await timedOut({ ...ask(prompt), max_completion_tokens: 32 } as never);
    expect(billed[6]).toMatchObject({ estimated: true, outputTokens: 32 });

    // The estimate is in the report and the budgets like any bill.
    const usage = getUsage(pipeline);
    expect(usage.byDeployment['silent/slow-model']).toMatchObject({ requests: 0, failures: 3, inputTokens: 300, outputTokens: 600 + 64 + 32 });
  });

  it('a connection that was refused is not billed: the vendor never had the request', async () => {
    const { pipeline, billed } = await setup({});
    expect((await pipeline.chat({ ...ask('hi'), model: 'refused' })).choices[0].message.content).toBe('from backup');
    expect(billed.map((b) => `${b.candidate.deploymentId}:${b.estimated}`)).toEqual(['backup/b:false']);
    expect(getUsage(pipeline).byDeployment['gone/g']).toMatchObject({ failures: 1, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  });

  it('rejects a speed that is not positive, naming the option', () => {
    expect(() => quota({ estimates: { outputTokensPerSecond: 0 } })).toThrow(/estimates\.outputTokensPerSecond/);
    expect(() => quota({ estimates: { deployments: { 'a/b': -1 } } })).toThrow(/estimates\.deployments/);
  });
});
