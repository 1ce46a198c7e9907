/** Issue 38: what an operator reads when the shared store goes away and comes back, and when a reload is refused. */
import { afterEach, expect, it } from 'vitest';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { createRedisStore, type RedisStateStore } from '@switchyard/store-redis';
import { describeWithRedis, hasRedisServer, OwnRedisServer } from '../../../plugins/store-redis/test/support/redis.js';
import { answers, GATEWAY_KEY, pipelineFor, startGateway, stopAll, vendor } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

let server: OwnRedisServer | undefined;
let store: RedisStateStore | undefined;
afterEach(async () => {
  await stopAll();
  await store?.close();
  await server?.stop();
  store = server = undefined;
});

describeWithRedis('the shared store going away', () => {
  it.skipIf(!hasRedisServer())('is one JSON line with event store:outage, and its return one with store:recovered; no process warning', { timeout: 20_000 }, async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      server = await OwnRedisServer.start();
      store = createRedisStore({ url: server.url, prefix: `i38-outage-${process.pid}:` });
      await store.ready();
      const primary = await vendor(answers(['ok']));
      const logger = recordingLogger();
      const h = await startGateway(pipelineFor({ vendors: { primary }, extra: { store, plugins: [circuitBreaker()] } }), { logger });
      await h.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
      await server.stop();
      // Requests still answer (local state) while the store is down.
      await expect.poll(async () => (await h.client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }), logger.lines.some((l) => l.event === 'store:outage')), { timeout: 10_000, interval: 50 }).toBe(true);
      expect(logger.lines.find((l) => l.event === 'store:outage')).toMatchObject({ level: 'error', store: server.url, errorCode: 'SWITCHYARD_ERR_STORE_UNAVAILABLE' });
      await server.start();
      await expect.poll(() => logger.lines.find((l) => l.event === 'store:recovered'), { timeout: 10_000, interval: 50 }).toMatchObject({ level: 'info', store: server.url, downMs: expect.any(Number) });
      expect(logger.lines.filter((l) => l.event === 'store:outage')).toHaveLength(1);
      expect(warnings.filter((w) => w.name === 'SwitchyardWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

it('counts a rejected reload in /metrics', async () => {
  const primary = await vendor(answers(['ok']));
  const h = await startGateway(pipelineFor({ vendors: { primary } }));
  h.gateway.reloadRejected(new Error('config reload failed: endpoints[0].baseUrl: expected an http(s) URL'));
  const text = await (await fetch(`${h.origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
  expect(text).toMatch(/switchyard_gateway_reloads_total\{result="failed"\} 1/);
});

it('counts a request refused for its key under the route it asked for, and logs it at info', async () => {
  const primary = await vendor(answers(['ok']));
  const logger = recordingLogger();
  const h = await startGateway(pipelineFor({ vendors: { primary } }), { logger });
  expect((await fetch(`${h.origin}/v1/models`)).status).toBe(401);
  const text = await (await fetch(`${h.origin}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
  expect(text).toMatch(/switchyard_gateway_requests_total\{route="\/v1\/models",status="401"\} 1/);
  expect(text).not.toContain('route="auth"');
  expect(logger.lines.find((l) => l.event === 'access' && l.status === 401)).toMatchObject({ level: 'info', errorCode: 'invalid_api_key' });
});
