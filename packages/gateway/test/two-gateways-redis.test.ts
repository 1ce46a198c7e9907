/**
 * Two gateways on one real Redis (.ci/redis.sh, port 6390, a unique key prefix): one set of
 * books, one breaker and one alert between them, shared health and a shared response cache.
 */
import { expect, it } from 'vitest';
import type { Pipeline } from '@switchyard/core';
import { alerts, getAlerts } from '@switchyard/plugin-alerts';
import { cache } from '@switchyard/plugin-cache';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { getHealth, health } from '@switchyard/plugin-health';
import { quota } from '@switchyard/plugin-quota';
import { describeWithRedis } from '../../../plugins/store-redis/test/support/redis.js';
import { redisStoresPerTest } from './support/redis-stores.js';
import { answers, fails, GATEWAY_KEY, pipelineFor, startGateway, vendor, type Harness, type Loopback } from './support/harness.js';

const redisStores = redisStoresPerTest();


const ask = (content = 'hi') => ({ model: 'chat', messages: [{ role: 'user' as const, content }] });

async function gateway(primary: Loopback, backup: Loopback, hook: Loopback): Promise<Harness & { pipeline: Pipeline; breakerEvents: string[] }> {
  const store = await redisStores.open();
  const pipeline = pipelineFor({
    vendors: { primary, backup },
    extra: {
      store,
      plugins: [
        circuitBreaker({ consecutiveFailures: 3, baseOpenMs: 60_000, maxOpenMs: 60_000, openJitter: 0 }),
        health(),
        quota({ ledger: {} }),
        cache({ store: 'redis', ttlMs: 60_000 }),
        alerts({ channels: [{ type: 'webhook', url: `${hook.url}/alerts` }] }),
      ],
    },
  });
  const breakerEvents: string[] = [];
  pipeline.events.on('breaker:open', (e) => breakerEvents.push(`open${e.remote ? ':remote' : ''}`));
  return { ...(await startGateway(pipeline)), pipeline, breakerEvents };
}

async function usage(h: Harness, query = ''): Promise<unknown> {
  const res = await fetch(`${h.origin}/switchyard/usage${query}`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } });
  expect(res.status).toBe(200);
  return res.json();
}

describeWithRedis('two gateways on one Redis', () => {
  it('agree on usage totals, raise a breaker alert once, share health and cache hits', { timeout: 30_000 }, async () => {
    redisStores.usePrefix('two-gateways');
    const primary = await vendor(fails(500, 'primary is down'));
    const backup = await vendor(answers(['from backup']));
    const hook = await vendor((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const a = await gateway(primary, backup, hook);
    const b = await gateway(primary, backup, hook);

    // Traffic through both: three failures in a row (shared record) open the primary's breaker once.
    for (let i = 0; i < 8; i++) {
      const via = i % 2 === 0 ? a : b;
      expect((await via.client.chat.completions.create(ask(`question ${i}`))).choices[0].message.content).toBe('from backup');
    }
    await expect.poll(() => [...a.breakerEvents, ...b.breakerEvents].sort(), { timeout: 5_000, interval: 25 }).toEqual(['open', 'open:remote']);
    await Promise.all([getAlerts(a.pipeline)!.settled(), getAlerts(b.pipeline)!.settled()]);
    const sent = hook.requests.map((r) => JSON.parse(r.body));
    expect(sent.filter((x) => x.alert === 'breaker-open')).toHaveLength(1);
    expect(sent[0]).toMatchObject({ alert: 'breaker-open', deployment: 'primary/primary-model' });
    expect(primary.requests).toHaveLength(3);

    // One set of books: both gateways answer the same, exactly.
    for (const groupBy of ['deployment', 'key', 'model', 'day']) expect(await usage(a, `?groupBy=${groupBy}`)).toEqual(await usage(b, `?groupBy=${groupBy}`));
    const totals = (await usage(a)) as { total: { requests: number; failures: number; billed: { inputTokens: number } }; groups: Record<string, { requests: number; failures: number }> };
    expect(totals.total).toMatchObject({ requests: 8, failures: 3, billed: { inputTokens: 8 * 3 } });
    expect(totals.groups['primary/primary-model']).toMatchObject({ requests: 0, failures: 3 });

    // A cached answer from one gateway is a hit on the other.
    const before = backup.requests.length;
    expect((await b.client.chat.completions.create(ask('question 0'))).choices[0].message.content).toBe('from backup');
    expect(backup.requests.length).toBe(before);

    // Health one instance finds reaches the other.
    expect(getHealth(b.pipeline)!.isHealthy('backup/backup-model')).toBe(true);
    a.pipeline.events.emit('health:change', { deployment: 'backup/backup-model', healthy: false, score: 0.1 });
    await expect.poll(() => getHealth(b.pipeline)!.isHealthy('backup/backup-model'), { timeout: 5_000, interval: 25 }).toBe(false);
    expect(getHealth(b.pipeline)!.score('backup/backup-model')).toBe(0.1);
    a.pipeline.events.emit('health:change', { deployment: 'backup/backup-model', healthy: true, score: 0.9 });
    await expect.poll(() => getHealth(b.pipeline)!.isHealthy('backup/backup-model'), { timeout: 5_000, interval: 25 }).toBe(true);
    await Promise.all([getAlerts(a.pipeline)!.settled(), getAlerts(b.pipeline)!.settled()]);
    expect(hook.requests.map((r) => JSON.parse(r.body).alert)).toEqual(['breaker-open', 'health-unhealthy', 'health-recovered']);
  });
});
