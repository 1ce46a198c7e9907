import { describe, expect, it } from 'vitest';
import { createPipeline, MemoryStateStore, type Transport } from '../src/index.js';
import { testProvider } from './support/test-provider.js';

function countingTransport(): Transport & { closed: number } {
  const t = {
    closed: 0,
    request: () => Promise.reject(new Error('not used')),
    close: async () => {
      t.closed++;
    },
  };
  return t;
}

const config = { endpoints: [{ name: 'u', provider: 'test', baseUrl: 'http://127.0.0.1:9/v1' }], models: { chat: [{ endpoint: 'u', model: 'm' }] } };

describe('a pipeline closes what it owns', () => {
  it('closes a transport and store handed over with owned: true, once', async () => {
    const transport = countingTransport();
    const store = new MemoryStateStore();
    let storeClosed = 0;
    store.close = async () => void storeClosed++;
    const pipeline = createPipeline({ ...config, providers: [testProvider], transport: { use: transport, owned: true }, store: { use: store, owned: true } });
    expect(pipeline.transport).toBe(transport);
    expect(pipeline.store).toBe(store);
    await Promise.all([pipeline.close(), pipeline.close()]);
    expect(transport.closed).toBe(1);
    expect(storeClosed).toBe(1);
  });

  it('leaves a transport and store passed in plainly to their owner (shared across reloads)', async () => {
    const transport = countingTransport();
    const store = new MemoryStateStore();
    let storeClosed = 0;
    store.close = async () => void storeClosed++;
    const pipeline = createPipeline({ ...config, providers: [testProvider], transport, store });
    await pipeline.close();
    expect(transport.closed).toBe(0);
    expect(storeClosed).toBe(0);
  });

  it("runs the plugins' close taps first (their background writes reach the store before it closes); a failing one is reported and the close goes on", async () => {
    const store = new MemoryStateStore();
    const order: string[] = [];
    store.close = async () => void order.push('store closed');
    const pipeline = createPipeline({ ...config, providers: [testProvider], store: { use: store, owned: true } });
    const errors: unknown[] = [];
    pipeline.events.on('plugin-error', (e) => errors.push(e));
    pipeline.hooks.close.tapPromise('writer', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      await store.set('written', true);
      order.push('writer done');
    });
    pipeline.hooks.close.tapPromise('broken', async () => {
      throw new Error('disk gone');
    });
    await pipeline.close();
    expect(order).toEqual(['writer done', 'store closed']);
    expect(errors).toEqual([expect.objectContaining({ plugin: 'broken', stage: 'close', error: expect.objectContaining({ message: 'disk gone' }) })]);
  });
});
