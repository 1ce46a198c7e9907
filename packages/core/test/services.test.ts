import { describe, expect, it } from 'vitest';
import { createPipeline, defineRequestSlot, defineService, getService, provideService, requireService, type RequestContext } from '../src/index.js';
import { testProvider } from './support/test-provider.js';

const pipelineWith = () => createPipeline({ endpoints: [{ name: 'u', provider: 'test', baseUrl: 'http://127.0.0.1:9/v1' }], models: { chat: [{ endpoint: 'u', model: 'm' }] }, providers: [testProvider] });

describe('typed service keys', () => {
  it('gives back what a plugin provided, per pipeline', () => {
    const COUNTER = defineService<{ count(): number }>('test.counter', { providedBy: '@acme/plugin-counter' });
    const a = pipelineWith();
    const b = pipelineWith();
    provideService(a, COUNTER, { count: () => 7 });
    expect(getService(a, COUNTER)?.count()).toBe(7);
    expect(requireService(a, COUNTER).count()).toBe(7);
    expect(getService(b, COUNTER)).toBeUndefined();
  });

  it('names the plugin to apply when no one provides the service', () => {
    const COUNTER = defineService<number>('test.missing', { providedBy: '@acme/plugin-counter' });
    expect(() => requireService(pipelineWith(), COUNTER)).toThrow(expect.objectContaining({ code: 'SWITCHYARD_ERR_PLUGIN_MISSING', message: '@acme/plugin-counter is not applied to this pipeline' }));
  });

  it('keeps a typed request slot in ctx.state under its name', () => {
    const SLOT = defineRequestSlot<{ n: number }>('test:slot');
    const ctx = { state: {} } as RequestContext;
    expect(SLOT.get(ctx)).toBeUndefined();
    SLOT.set(ctx, { n: 1 });
    expect(SLOT.get(ctx)).toEqual({ n: 1 });
    expect(ctx.state['test:slot']).toEqual({ n: 1 });
  });
});
