/**
 * Own what you open: every reload builds a pipeline from config, with its own upstream
 * transport; closing the old pipeline must close that transport's keep-alive sockets. Counted
 * on the upstream server itself (its accepted connections that are still open).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '@switchyard/core/config';
import { pipelineFromConfig } from '../src/index.js';
import { answers, startGateway, stopAll, vendor } from './support/harness.js';

afterEach(stopAll);

const RELOADS = 20;
const WORKERS = 4;

describe('reloads own their upstream transport', () => {
  it(`${RELOADS} reloads under traffic leave no more upstream sockets open than one pipeline uses`, async () => {
    const upstream = await vendor(answers(['ok']));
    const config = parseConfig(
      ['endpoints:', '  - name: up', '    provider: openai', `    baseUrl: ${upstream.url}`, '    apiKey: sk-vendor-0123456789abcdef', 'models:', '  chat:', '    - endpoint: up', '      model: up-model', ''].join('\n'),
      {},
    );
    const importer = async () => (await import('@switchyard/provider-openai')) as Record<string, unknown>;
    const build = () => pipelineFromConfig(config, { importer });
    const { gateway, client } = await startGateway(await build());
    let stop = false;
    let answered = 0;
    const worker = async () => {
      while (!stop) {
        const r = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
        if (r.choices[0].message.content === 'ok') answered++;
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);
    const openAfter: number[] = [];
    for (let i = 1; i <= RELOADS; i++) {
      const before = answered;
      gateway.reload(await build());
      // Traffic on the new pipeline before the next reload.
      await expect.poll(() => answered, { timeout: 5_000, interval: 5 }).toBeGreaterThan(before + WORKERS);
      openAfter.push(upstream.openSockets());
    }
    stop = true;
    await Promise.all(workers);
    // Every old pipeline closed after it drained, and took its sockets with it: what stays
    // open is the current pipeline's pool (at most one socket per worker).
    await expect.poll(() => upstream.openSockets(), { timeout: 5_000 }).toBeLessThanOrEqual(WORKERS);
    console.log(`upstream sockets open after reload 1/5/10/20: ${[1, 5, 10, 20].map((n) => openAfter[n - 1]).join(' / ')}; accepted in total: ${upstream.acceptedSockets()}; answers: ${answered}`);
    expect(Math.max(...openAfter)).toBeLessThanOrEqual(3 * WORKERS);
    expect(upstream.acceptedSockets()).toBeGreaterThan(RELOADS);
  }, 60_000);
});
