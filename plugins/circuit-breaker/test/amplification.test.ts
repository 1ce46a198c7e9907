/**
 * Upstream amplification with the primary fully down: 1 000 requests at 10 per second on
 * virtual time (in-process transport; the HTTP path is covered by outage.test.ts). Prints the
 * table quoted in README.md and checks the bounds the retry budget and the breaker promise.
 */
import { expect, it } from 'vitest';
import { createPipeline, seededRandom, sleep, VirtualClock, type Plugin } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { drive } from '../../retry/test/support/drive.js';
import { fail, ok, scriptedTransport } from '../../retry/test/support/in-process.js';
import { retry } from '../../retry/src/index.js';
import { circuitBreaker } from '../src/index.js';

const REQUESTS = 1_000;

async function run(plugins: Plugin[]) {
  const clock = new VirtualClock(0);
  const transport = scriptedTransport(({ host }) => (host === 'primary.test' ? fail(503, 'down') : ok()), () => clock.now());
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'test', baseUrl: 'http://primary.test/v1' },
      { name: 'backup', provider: 'test', baseUrl: 'http://backup.test/v1' },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'p' }, { endpoint: 'backup', model: 'b' }] },
    providers: [testProvider],
    plugins,
    clock,
    random: seededRandom(99),
    transport,
  });
  let succeeded = 0;
  const load = (async () => {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      pending.push(pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).then(() => void succeeded++));
      await sleep(clock, 100);
    }
    await Promise.all(pending);
  })();
  await drive(clock, load);
  const primary = transport.count('primary.test');
  const total = transport.calls.length;
  return { succeeded, primary, total, primaryPerRequest: primary / REQUESTS, amplification: total / REQUESTS };
}

it('1 000 requests with the primary down: attempts on the primary and amplification', { timeout: 60_000 }, async () => {
  const rows = {
    'core default (no plugins)': await run([]),
    'retry': await run([retry()]),
    'retry, no budget': await run([retry({ budget: { ratio: 10, minRetries: 1_000_000 } })]),
    'retry + circuit breaker': await run([retry(), circuitBreaker()]),
    'circuit breaker': await run([circuitBreaker()]),
  };
  console.table(Object.fromEntries(Object.entries(rows).map(([k, r]) => [k, { ...r, primaryPerRequest: r.primaryPerRequest.toFixed(3), amplification: r.amplification.toFixed(3) }])));
  for (const r of Object.values(rows)) expect(r.succeeded).toBe(REQUESTS);
  expect(rows['retry, no budget'].primary).toBe(2 * REQUESTS);
  // The budget: about 20 % extra plus a floor of 3 per 10 s window.
  expect(rows.retry.primary).toBeLessThanOrEqual(REQUESTS * 1.2 + 3 * 10 + 10);
  expect(rows.retry.primary).toBeGreaterThan(REQUESTS);
  // The breaker: 5 failures to trip, then a handful of probes over 100 s.
  expect(rows['retry + circuit breaker'].primary).toBeLessThanOrEqual(12);
  expect(rows['retry + circuit breaker'].amplification).toBeLessThan(1.02);
});
