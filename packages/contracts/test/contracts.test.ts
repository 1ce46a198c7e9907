import { SyncHook } from 'tapable';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createPipeline, defineHooks, errorCodeInfo, httpStatusOf, SwitchyardError, type RequestContext, type SwitchyardErrorCode, type SwitchyardEvents } from '@switchyard/core';
import { BREAKER_HOOKS, HEALTH_HOOKS, REQUEST_SLOT, ROUTING_ERRORS, SERVICE, TENANT_ERRORS, type BreakerOpened, type UsageBilled } from '../src/index.js';

describe('@switchyard/contracts', () => {
  it('registers the shared error codes with core, owner named', () => {
    expect(httpStatusOf(new SwitchyardError('invalid-request', 'expired', { code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_EXPIRED }))).toBe(401);
    expect(httpStatusOf(new SwitchyardError('invalid-request', 'no', { code: TENANT_ERRORS.SWITCHYARD_ERR_MODEL_NOT_ALLOWED }))).toBe(403);
    expect(errorCodeInfo(ROUTING_ERRORS.SWITCHYARD_ERR_CONTEXT_WINDOW)).toMatchObject({ kind: 'context-length', status: 400, owner: '@switchyard/contracts' });
    expect(errorCodeInfo('SWITCHYARD_ERR_KEY_BUDGET')).toMatchObject({ kind: 'budget-exhausted', status: 429, owner: '@switchyard/plugin-tenants' });
    expectTypeOf<'SWITCHYARD_ERR_KEY_EXPIRED'>().toExtend<SwitchyardErrorCode>();
  });

  it('adds the owners\' events to core\'s map', () => {
    expectTypeOf<SwitchyardEvents['breaker:open'][0]>().toEqualTypeOf<BreakerOpened>();
    expectTypeOf<SwitchyardEvents['usage:billed'][0]>().toEqualTypeOf<UsageBilled>();
  });

  it('names each service after the package that provides it', () => {
    expect(Object.fromEntries(Object.entries(SERVICE).map(([k, v]) => [k, v.providedBy]))).toEqual({
      retryBudget: '@switchyard/plugin-retry',
      metrics: '@switchyard/plugin-metrics',
      usage: '@switchyard/plugin-quota',
      health: '@switchyard/plugin-health',
      pricing: '@switchyard/plugin-quota',
      tenants: '@switchyard/plugin-tenants',
    });
  });

  it('keeps the request slots in ctx.state under names of their own', () => {
    const ctx = { state: {} } as RequestContext;
    REQUEST_SLOT.demoted.set(ctx, new Set(['a/m']));
    REQUEST_SLOT.shortenable.set(ctx, new Set(['b/m']));
    expect(REQUEST_SLOT.demoted.get(ctx)).toEqual(new Set(['a/m']));
    expect(Object.keys(ctx.state).sort()).toEqual(['switchyard:demoted', 'switchyard:shortenable']);
  });

  it('gives the breaker and health hooks to whoever asks first, one set per pipeline', () => {
    const pipeline = createPipeline({ endpoints: [], models: {} });
    const opened: string[] = [];
    BREAKER_HOOKS.of(pipeline).open.tap('test', (e) => void opened.push(e.deployment));
    // A second copy of the definition (another version of this package) reaches the same hooks.
    const copy = defineHooks('@switchyard/plugin-circuit-breaker', () => ({ open: new SyncHook<[BreakerOpened]>(['opened']) }));
    copy.of(pipeline).open.call({ deployment: 'a/m', until: 1, reason: 'failures' });
    expect(opened).toEqual(['a/m']);
    expect(HEALTH_HOOKS.of(pipeline)).toBe(HEALTH_HOOKS.of(pipeline));
  });
});
