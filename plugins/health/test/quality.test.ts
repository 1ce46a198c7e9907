import { createPipeline, defineProvider, seededRandom, VirtualClock } from '@switchyard/core';
import { describe, expect, it } from 'vitest';
import { testProvider } from '../../../packages/core/test/support/test-provider.js';
import { scriptedTransport, settle } from '../../router/test/support/scripted-transport.js';
import { getHealth, health, healthOptionsSchema, type HealthOptionsInput, type QualityCase } from '../src/index.js';

/** The test codec, forwarding what a quality probe sets (max_tokens, temperature). */
const forwarding = defineProvider({
  ...testProvider,
  id: 'forwarding',
  buildRequest(request, target, options) {
    const built = testProvider.buildRequest(request, target, options);
    return { ...built, body: JSON.stringify({ ...JSON.parse(built.body!), max_tokens: request.max_tokens, temperature: request.temperature }) };
  },
});

const cases: QualityCase[] = [
  { name: 'arithmetic', prompt: 'What is 2+2? Answer with a digit.', expect: { exact: '4' } },
  { name: 'capital', prompt: 'What is the capital of France?', expect: { contains: 'paris' } },
  { name: 'year', prompt: 'In which year did people first land on the moon?', expect: { regex: '\\b1969\\b' } },
  {
    name: 'json',
    prompt: 'Reply with JSON: {"city": "...", "country": "..."} for the capital of France.',
    expect: { jsonSchema: { type: 'object', required: ['city', 'country'], properties: { city: { type: 'string' }, country: { type: 'string' } } } },
    maxTokens: 40,
  },
];

interface Upstream {
  model: string;
  delayMs: number;
  answers: Record<string, string>;
}

const good = (): Record<string, string> => ({ arithmetic: '4', capital: 'The capital is Paris.', year: 'In 1969.', json: '```json\n{"city":"Paris","country":"France"}\n```' });

function setup(options: HealthOptionsInput = {}) {
  const clock = new VirtualClock();
  const upstream: Upstream = { model: 'gpt-4o-2024-08-06', delayMs: 200, answers: good() };
  const starts: number[] = [];
  const transport = scriptedTransport(clock, (call) => {
    starts.push(clock.now());
    const prompt = String((call.body.messages as { content: string }[])[0].content);
    const name = cases.find((c) => c.prompt === prompt)?.name ?? '';
    const content = upstream.answers[name] ?? '';
    return { delayMs: upstream.delayMs, body: { id: 'q', object: 'chat.completion', created: 1, model: upstream.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 } } };
  });
  const pipeline = createPipeline({
    endpoints: [{ name: 'up', provider: 'forwarding', baseUrl: 'http://up/v1' }],
    models: { chat: [{ endpoint: 'up', model: 'gpt-4o' }] },
    providers: [forwarding],
    plugins: [health({ probes: { quality: { cases } }, ...options })],
    clock,
    random: seededRandom(2),
    transport,
  });
  const changes: { ok: boolean; failed: string[]; signals: string[] }[] = [];
  pipeline.events.on('quality:change', ({ ok, failed, drift }) => changes.push({ ok, failed, signals: drift.map((d) => d.signal) }));
  const monitor = getHealth(pipeline);
  const run = () => settle(clock, monitor.runProbes(['quality']));
  return { pipeline, clock, upstream, transport, starts, changes, monitor, run, quality: () => monitor.snapshot()['up/gpt-4o'].quality };
}

describe('health: the quality probe (a small test set and a baseline)', () => {
  it('runs the test set one case after another, at temperature 0 with few tokens; the first passing run is the baseline', async () => {
    const { run, transport, starts, changes, quality, monitor } = setup();
    const [result] = await run();
    expect(result).toMatchObject({ ok: true, depth: 'quality', latencyMs: 800 });
    expect(transport.calls.map((c) => [c.body.max_tokens, c.body.temperature])).toEqual([
      [16, 0],
      [16, 0],
      [16, 0],
      [40, 0],
    ]);
    // One at a time: each case starts when the previous answered.
    expect(starts.map((t) => t - starts[0])).toEqual([0, 200, 400, 600]);
    expect(quality()).toMatchObject({ ok: true, failed: [], drift: [], baselineAt: expect.any(Number), tokens: 60 });
    expect(changes).toEqual([]);
    expect(monitor.isHealthy('up/gpt-4o')).toBe(true);
    monitor.stop();
  });

  it('names the cases whose answers fail their checks (exact, JSON Schema), counts the run against health, and reports the recovery', async () => {
    const { run, upstream, changes, quality, monitor } = setup({ minSamples: 2 });
    upstream.answers.arithmetic = 'four';
    upstream.answers.json = 'Paris, France';
    const [result] = await run();
    expect(result).toMatchObject({ ok: false, failure: 'endpoint' });
    expect(result.error?.message).toMatch(/arithmetic is not exactly "4".*json is not JSON/);
    expect(changes).toEqual([{ ok: false, failed: ['arithmetic', 'json'], signals: [] }]);
    upstream.answers.json = '{"city": 3}';
    await run();
    expect(quality()?.failed).toEqual(['arithmetic', 'json']);
    expect(monitor.snapshot()['up/gpt-4o'].probes.quality?.error).toContain("json does not match the JSON Schema: answer must have required property 'country'");
    expect(monitor.isHealthy('up/gpt-4o')).toBe(false);
    upstream.answers = good();
    await run();
    expect(changes.at(-1)).toEqual({ ok: true, failed: [], signals: [] });
    monitor.stop();
  });

  it('catches a silently swapped model: the answering model changed, though every answer still passes', async () => {
    const { run, upstream, changes, quality, monitor } = setup();
    await run();
    upstream.model = 'gpt-4o-mini-2024-07-18';
    const [result] = await run();
    expect(result.ok).toBe(true);
    expect(changes).toEqual([{ ok: false, failed: [], signals: ['model-changed'] }]);
    expect(quality()?.drift[0]).toMatchObject({ baseline: 'gpt-4o-2024-08-06', observed: 'gpt-4o-mini-2024-07-18', message: 'the answering model changed from gpt-4o-2024-08-06 to gpt-4o-mini-2024-07-18' });
    // Drift is a signal, not an outage: health still counts the run as a success.
    expect(monitor.snapshot()['up/gpt-4o']).toMatchObject({ healthy: true, successRate: 1 });
    upstream.model = 'gpt-4o-2024-08-06';
    await run();
    expect(changes.at(-1)).toMatchObject({ ok: true, signals: [] });
    monitor.stop();
  });

  it('catches answers that drift from the baseline, and latency and length shifts', async () => {
    const { run, upstream, changes, monitor } = setup();
    // The latency baseline: the median of the first three passing runs.
    for (let i = 0; i < 3; i++) await run();
    // Still passing every check, but another model's habits: long-winded and slow.
    upstream.answers.capital = 'Paris. It has been the capital of France for centuries and is its largest city by far.';
    upstream.answers.year = 'The first crewed landing on the moon was Apollo 11, in July 1969, by Armstrong and Aldrin.';
    upstream.answers.json = '{"country": "France", "city": "Paris", "note": "the capital and largest city"}';
    upstream.delayMs = 1_000;
    await run();
    expect(changes).toEqual([{ ok: false, failed: [], signals: ['answer-drift', 'latency-shift', 'length-shift'] }]);
    upstream.answers = good();
    upstream.delayMs = 150;
    await run();
    expect(changes.at(-1)).toMatchObject({ ok: true });
    monitor.stop();
  });

  it('takes no cold first run as the latency baseline: warm runs after a slow first one raise no latency shift (issue 38)', async () => {
    const { run, upstream, changes, quality, monitor } = setup();
    upstream.delayMs = 1_500; // the first run: new connections, a vendor warming up
    await run();
    upstream.delayMs = 200;
    for (let i = 0; i < 4; i++) await run();
    expect(changes).toEqual([]);
    expect(quality()).toMatchObject({ ok: true, drift: [] });
    // Once warm, a real shift (over 4 times the median of 6000 / 800 / 800 ms) is still caught.
    upstream.delayMs = 1_000;
    await run();
    expect(changes).toEqual([{ ok: false, failed: [], signals: ['latency-shift'] }]);
    expect(quality()!.drift[0]).toMatchObject({ signal: 'latency-shift', baseline: 800, observed: 4_000 });
    monitor.stop();
  });

  it('takes a new baseline after a reset (an intended model upgrade) or when the test set changes', async () => {
    const { run, upstream, changes, quality, monitor, pipeline } = setup();
    await run();
    const first = quality()!.baselineAt!;
    upstream.model = 'gpt-4o-2024-11-20';
    await run();
    expect(changes.map((c) => c.ok)).toEqual([false]);
    await monitor.resetQualityBaseline('up/gpt-4o');
    await run();
    expect(changes.map((c) => c.ok)).toEqual([false, true]);
    expect(quality()!.baselineAt).toBeGreaterThan(first);
    await run();
    expect(quality()).toMatchObject({ ok: true, drift: [] });
    monitor.stop();

    // Another test set on the same store: its first run is a baseline of its own, not drift.
    const other = createPipeline({
      endpoints: [{ name: 'up', provider: 'forwarding', baseUrl: 'http://up/v1' }],
      models: { chat: [{ endpoint: 'up', model: 'gpt-4o' }] },
      providers: [forwarding],
      plugins: [health({ probes: { quality: { cases: cases.slice(0, 2) } } })],
      clock: pipeline.clock,
      store: pipeline.store,
      transport: pipeline.transport,
    });
    upstream.model = 'gpt-4o-mini';
    await settle(pipeline.clock as VirtualClock, getHealth(other).runProbes(['quality']));
    expect(getHealth(other).snapshot()['up/gpt-4o'].quality).toMatchObject({ ok: true, drift: [] });
    getHealth(other).stop();
  });

  it('is opt-in, hourly by default, and rejects a test set it cannot run', () => {
    const defaults = healthOptionsSchema.parse({ probes: { quality: { cases } } });
    expect(defaults.probes.quality).toMatchObject({ intervalMs: 3_600_000, maxTokens: 16, baseline: { model: true, minSimilarity: 0.5, latencyFactor: 4, lengthFactor: 2.5 } });
    expect(healthOptionsSchema.parse({}).probes.quality).toBeUndefined();
    expect(() => health({ probes: { quality: { cases: [{ prompt: 'x', expect: { jsonSchema: { type: 'nonsense' } } }] } } })).toThrow(/probes\.quality\.cases\.0\.expect/);
    expect(() => health({ probes: { quality: { cases, prompt: 'x', expect: 'y' } } })).toThrow(/probes\.quality\.prompt: give either/);
    expect(() => health({ probes: { quality: { intervalMs: 60_000 } } })).toThrow(/probes\.quality\.cases: a quality probe needs/);
  });
});
