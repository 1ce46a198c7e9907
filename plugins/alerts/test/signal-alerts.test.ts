/** Alerts from the health and router plugins' signals: error patterns, the quality probe, traffic drift, end to end. */
import { afterEach, describe, expect, it } from 'vitest';
import { health, getHealth } from '@switchyard/plugin-health';
import { router } from '@switchyard/plugin-router';
import { completion } from '../../../packages/core/test/support/loopback.js';
import { pipelineWithAlerts, receiver, startLoopback, stopAll } from './receivers.js';

afterEach(stopAll);

/** An OpenAI-style vendor on loopback: `status` for chats, answering as `model`. */
async function vendor(state: { status: number; model: string; answer: string }) {
  const server = await startLoopback((_req, res) => {
    res.writeHead(state.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(state.status >= 300 ? { error: { message: 'overloaded', type: 'overloaded_error' } } : { ...(completion(state.answer) as object), model: state.model }));
  });
  return server;
}

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('alerts from health signals', () => {
  it('error-pattern: fires when the same error repeats, resolves as error-pattern-ended when it stops', async () => {
    const hook = await receiver();
    const state = { status: 529, model: 'gpt-x', answer: 'ok' };
    const upstream = await vendor(state);
    const { pipeline, settled } = pipelineWithAlerts(
      { channels: [{ type: 'webhook', url: `${hook.root}/h`, alerts: ['error-pattern'] }] },
      { endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url }], plugins: [health({ minSamples: 1000, patterns: { sameError: { inARow: 3 } } })] },
    );
    for (let i = 0; i < 3; i++) await pipeline.chat(ask).catch(() => undefined);
    state.status = 200;
    await pipeline.chat(ask);
    await settled();
    const bodies = hook.bodies();
    expect(bodies.map((b) => `${b.alert}:${b.state}`)).toEqual(['error-pattern:firing', 'error-pattern-ended:resolved']);
    expect(bodies[0]).toMatchObject({ severity: 'warning', deployment: 'primary/gpt-x', details: { pattern: 'same-error', kind: 'overloaded', status: 529, count: 3 } });
    expect(bodies[0].message).toContain('primary/gpt-x keeps failing with the same error, 3 times in a row');
  });

  it('quality-degraded: fires when the answering model changes from the baseline, resolves when it is back', async () => {
    const hook = await receiver();
    const state = { status: 200, model: 'gpt-x-2025-01', answer: '4' };
    const upstream = await vendor(state);
    const { pipeline, settled } = pipelineWithAlerts(
      { channels: [{ type: 'webhook', url: `${hook.root}/h` }] },
      { endpoints: [{ name: 'primary', provider: 'openai', baseUrl: upstream.url }], plugins: [health({ probes: { quality: { cases: [{ name: 'sum', prompt: 'What is 2+2?', expect: { exact: '4' } }] } } })] },
    );
    const monitor = getHealth(pipeline);
    await monitor.runProbes(['quality']);
    state.model = 'gpt-x-mini';
    await monitor.runProbes(['quality']);
    state.model = 'gpt-x-2025-01';
    await monitor.runProbes(['quality']);
    monitor.stop();
    await settled();
    const bodies = hook.bodies();
    expect(bodies.map((b) => `${b.alert}:${b.state}`)).toEqual(['quality-degraded:firing', 'quality-restored:resolved']);
    expect(bodies[0].message).toBe('primary/gpt-x quality probe: the answering model changed from gpt-x-2025-01 to gpt-x-mini');
    expect(bodies[0].details.drift).toEqual([expect.objectContaining({ signal: 'model-changed' })]);
  });

  it('traffic-drift: fires when a model\'s shares leave their declared split, resolves as traffic-restored', async () => {
    const hook = await receiver();
    const primary = { status: 200, model: 'gpt-x', answer: 'ok' };
    const [a, b] = await Promise.all([vendor(primary), vendor({ status: 200, model: 'gpt-y', answer: 'ok' })]);
    const { pipeline, clock, settled } = pipelineWithAlerts(
      { channels: [{ type: 'webhook', url: `${hook.root}/h`, alerts: ['traffic-drift'] }] },
      {
        endpoints: [
          { name: 'primary', provider: 'openai', baseUrl: a.url },
          { name: 'backup', provider: 'openai', baseUrl: b.url },
        ],
        models: { chat: [{ endpoint: 'primary', model: 'gpt-x', priority: 0, weight: 9 }, { endpoint: 'backup', model: 'gpt-y', priority: 0, weight: 1 }] },
        plugins: [router({ trafficTargets: { chat: { shares: { 'primary/gpt-x': 0.9, 'backup/gpt-y': 0.1 }, windowMs: 60_000, tolerance: 0.15, minRequests: 20 } } })],
      },
    );
    const requests = async (n: number) => {
      for (let i = 0; i < n; i++) {
        await pipeline.chat(ask).catch(() => undefined);
        await clock.advance(1_000);
      }
    };
    primary.status = 503;
    await requests(25);
    primary.status = 200;
    await requests(90);
    await settled();
    const bodies = hook.bodies();
    expect(bodies.map((b) => `${b.alert}:${b.state}`)).toEqual(['traffic-drift:firing', 'traffic-restored:resolved']);
    expect(bodies[0]).toMatchObject({ severity: 'warning', model: 'chat', details: { windowMs: 60_000 } });
    expect(bodies[0].message).toMatch(/^traffic of model "chat" drifted from its target over 60 s \(\d+ requests\): primary\/gpt-x 0 %, backup\/gpt-y 100 %; target primary\/gpt-x 90 %, backup\/gpt-y 10 %$/);
  });
});
