/**
 * A primary that is down for 60 s, through the production path (undici → loopback sockets)
 * on virtual time, with the retry and breaker plugins together.
 */
import { afterEach, expect, it } from 'vitest';
import { createPipeline, runWithVirtualTime, seededRandom, sleep, VirtualClock } from '@switchyard/core';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { completion, startLoopback, type Loopback } from '../../../packages/core/test/support/loopback.js';
import { retry } from '../../retry/src/index.js';
import { circuitBreaker, getBreaker } from '../src/index.js';

const servers: Loopback[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

it('a primary down for 60 s is skipped while open (a few probes) and takes traffic back within 30 s of recovery', async () => {
  const clock = new VirtualClock(0);
  const OUTAGE_MS = 60_000;
  const primaryArrivals: number[] = [];
  const primary = await startLoopback((_req, res) => {
    primaryArrivals.push(clock.now());
    if (clock.now() < OUTAGE_MS) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'service unavailable' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion('primary')));
  });
  const backup = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion('backup')));
  });
  servers.push(primary, backup);
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'test', baseUrl: primary.url },
      { name: 'backup', provider: 'test', baseUrl: backup.url },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'p' }, { endpoint: 'backup', model: 'b' }] },
    providers: [testProvider],
    plugins: [retry(), circuitBreaker()],
    clock,
    random: seededRandom(2024),
  });
  const transitions: string[] = [];
  pipeline.events.on('breaker:open', (e) => transitions.push(`${clock.now()} open until ${Math.round(e.until)}`));
  pipeline.events.on('breaker:close', () => transitions.push(`${clock.now()} close`));

  const served: { at: number; by: string }[] = [];
  const load = (async () => {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) {
      const at = clock.now();
      pending.push(pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: `#${i}` }] }).then((r) => void served.push({ at, by: r.switchyard!.endpoint })));
      await sleep(clock, 1_000);
    }
    await Promise.all(pending);
  })();
  await runWithVirtualTime(clock, load, { stepMs: 100 });

  expect(served).toHaveLength(100);
  const firstOpen = Number(transitions[0].split(' ')[0]);
  const probesDuringOutage = primaryArrivals.filter((t) => t > firstOpen && t < OUTAGE_MS);
  expect(firstOpen).toBeLessThan(5_000);
  expect(primaryArrivals.filter((t) => t <= firstOpen).length).toBeLessThanOrEqual(5);
  expect(probesDuringOutage.length).toBeGreaterThanOrEqual(1);
  expect(probesDuringOutage.length).toBeLessThanOrEqual(4);
  const back = served.find((s) => s.at >= OUTAGE_MS && s.by === 'primary');
  expect(back).toBeDefined();
  expect(back!.at - OUTAGE_MS).toBeLessThanOrEqual(30_000);
  expect(served.filter((s) => s.at > back!.at).every((s) => s.by === 'primary')).toBe(true);
  expect((await getBreaker(pipeline).getState('primary/p')).state).toBe('closed');
  await pipeline.close();
});
