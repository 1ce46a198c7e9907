import { describe, expect, it } from 'vitest';
import { createPipeline, SwitchyardError, type TransportRequest } from '@switchyard/core';
import { readBodyText } from '@switchyard/core/wire';
import { providers as openai } from '@switchyard/provider-openai';
import { createFaultModel } from './faults/fault-model.js';
import { healthyText } from './faults/healthy-text.js';
import { always, between } from './faults/schedules.js';
import { SimulationClock } from './simulation-clock.js';
import { createSimulatedTransport, type SimulatedEndpoint, type UpstreamCall } from './simulated-transport.js';

const BASE = 'https://a.simulated.invalid/v1';

function setup(rules: (clock: SimulationClock) => SimulatedEndpoint['rules'], apiKeys?: string[]) {
  const clock = new SimulationClock(0);
  const calls: UpstreamCall[] = [];
  const endpoint: SimulatedEndpoint = { name: 'a', baseUrl: BASE, apiKeys, rules: rules(clock), healthy: createFaultModel('openai', 'ok', { latency: 400 }, { clock }) };
  const transport = createSimulatedTransport({ clock, endpoints: [endpoint], onCall: (c) => calls.push(c) });
  return { clock, transport, calls };
}

function chatRequest(signal: AbortSignal, { stream = false, key = 'k0' } = {}): TransportRequest {
  return {
    url: `${BASE}/chat/completions`,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], ...(stream ? { stream: true } : {}) }),
    signal,
  };
}

/** Settles `work`, firing the simulation clock's timers one by one until it does. */
async function settle<T>(clock: SimulationClock, work: Promise<T>): Promise<{ value?: T; error?: SwitchyardError; at: number }> {
  let outcome: { value?: T; error?: SwitchyardError; at: number } | undefined;
  work.then(
    (value) => (outcome = { value, at: clock.now() }),
    (error) => (outcome = { error, at: clock.now() }),
  );
  await new Promise(setImmediate);
  while (!outcome && (await clock.step()));
  return outcome ?? { at: clock.now() };
}

describe('simulated transport', () => {
  it('answers healthy requests after the latency, on the virtual clock', async () => {
    const { clock, transport, calls } = setup(() => []);
    const { value, at } = await settle(clock, transport.request(chatRequest(new AbortController().signal)));
    expect(at).toBe(400);
    expect(value!.status).toBe(200);
    expect(value!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(await readBodyText(value!.body));
    expect(body.choices[0].message.content).toBe(healthyText());
    expect(calls).toEqual([{ endpoint: 'a', keyIndex: undefined, fault: 'ok', at: 0 }]);
  });

  it('a reset rejects like a socket reset: kind network', async () => {
    const { clock, transport } = setup((c) => [{ model: createFaultModel('openai', 'reset', {}, { clock: c }) }]);
    const { error } = await settle(clock, transport.request(chatRequest(new AbortController().signal)));
    expect(error).toMatchObject({ kind: 'network' });
    expect(error!.message).toMatch(/ECONNRESET/);
  });

  it('a hang waits for the abort and rejects with its reason (as the pipeline gives it)', async () => {
    const { clock, transport } = setup((c) => [{ model: createFaultModel('openai', 'hang', {}, { clock: c }) }]);
    const controller = new AbortController();
    const reason = new SwitchyardError('timeout', 'no response headers within 10000 ms');
    clock.setTimeout(() => controller.abort(reason), 10_000);
    const { error, at } = await settle(clock, transport.request(chatRequest(controller.signal)));
    expect(error).toBe(reason);
    expect(at).toBe(10_000);
  });

  it('a cut ends the body mid-event with a network error; a stall waits for the abort', async () => {
    const cut = setup((c) => [{ model: createFaultModel('openai', 'stream-cut', { afterTokens: 2 }, { clock: c }) }]);
    const res = (await settle(cut.clock, cut.transport.request(chatRequest(new AbortController().signal, { stream: true })))).value!;
    const { error } = await settle(cut.clock, readBodyText(res.body));
    expect(error).toMatchObject({ kind: 'network' });

    const stall = setup((c) => [{ model: createFaultModel('openai', 'stream-stall', { afterTokens: 1 }, { clock: c }) }]);
    const controller = new AbortController();
    const stalled = (await settle(stall.clock, stall.transport.request(chatRequest(controller.signal, { stream: true })))).value!;
    const reason = new SwitchyardError('idle-timeout', 'no data within 30000 ms');
    stall.clock.setTimeout(() => controller.abort(reason), 30_000);
    const read = await settle(stall.clock, readBodyText(stalled.body));
    expect(read.error).toBe(reason);
    expect(read.at).toBe(30_000);
  });

  it('rules apply in order, within their schedule, and only to the keys they name', async () => {
    const { clock, transport, calls } = setup(
      (c) => [
        { model: createFaultModel('openai', 'unavailable', { when: between(0, 1_000) }, { clock: c }) },
        { model: createFaultModel('openai', 'out-of-credit', { when: always }, { clock: c }), keys: [1] },
      ],
      ['k0', 'k1'],
    );
    const send = (key: string) => settle(clock, transport.request(chatRequest(new AbortController().signal, { key })));
    expect((await send('k1')).value!.status).toBe(503);
    clock.setTimeout(() => undefined, 2_000);
    await clock.runUntil(2_000);
    expect((await send('k0')).value!.status).toBe(200);
    expect((await send('k1')).value!.status).toBe(429);
    expect(calls.map((c) => [c.keyIndex, c.fault])).toEqual([[1, 'unavailable'], [0, 'ok'], [1, 'out-of-credit']]);
  });

  it('a URL no endpoint serves fails like an unknown host', async () => {
    const { clock, transport } = setup(() => []);
    const { error } = await settle(clock, transport.request({ ...chatRequest(new AbortController().signal), url: 'https://elsewhere.invalid/v1/chat/completions' }));
    expect(error).toMatchObject({ kind: 'network' });
    expect(error!.message).toMatch(/no simulated endpoint/);
  });

  it('the real OpenAI codec reads fault bodies through it: a 503 fails over, a stream arrives whole', async () => {
    const clock = new SimulationClock(0);
    const endpoints: SimulatedEndpoint[] = ['down', 'up'].map((name) => ({
      name,
      baseUrl: `https://${name}.simulated.invalid/v1`,
      rules: name === 'down' ? [{ model: createFaultModel('openai', 'unavailable', {}, { clock }) }] : [],
      healthy: createFaultModel('openai', 'ok', { latency: 300, tokenDelay: 20 }, { clock }),
    }));
    const pipeline = createPipeline({
      endpoints: endpoints.map((e) => ({ name: e.name, provider: 'openai', baseUrl: e.baseUrl, apiKey: 'sk-test' })),
      models: { chat: [{ endpoint: 'down', model: 'gpt-4o-mini' }, { endpoint: 'up', model: 'gpt-4o-mini' }] },
      providers: openai,
      clock,
      transport: createSimulatedTransport({ clock, endpoints }),
    });
    const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
    const chat = await settle(clock, pipeline.chat(ask));
    expect(chat.value!.switchyard).toMatchObject({ endpoint: 'up', attempts: 2 });
    const streamed = await settle(clock, pipeline.stream(ask).then((s) => s.collect()));
    expect(streamed.value!.choices[0]!.message.content).toBe(healthyText());
    expect(streamed.value!.switchyard).toMatchObject({ endpoint: 'up' });
  });
});
