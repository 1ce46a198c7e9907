import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { endpointUpAt } from './fault-rules.js';
import { defaultBucketMs, SCENARIO_ERROR_CODE, validateScenario } from './scenario.js';
import { loadScenarioFile, parseScenario } from './scenario-file.js';

const H = 3_600_000;
const D = 24 * H;

const minimal = () => ({
  duration: '1d',
  traffic: { every: '30s' },
  endpoints: [
    { name: 'primary', provider: 'openai', models: ['gpt-4o-mini'] },
    { name: 'backup', provider: 'anthropic', models: ['claude-sonnet-4-5'] },
  ],
});

function rejects(input: unknown, path: string, message: RegExp) {
  let caught: unknown;
  try {
    validateScenario(input);
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected an error at ${path}`).toMatchObject({ code: SCENARIO_ERROR_CODE, kind: 'config', path });
  expect((caught as Error).message).toMatch(message);
}

describe('scenario validation', () => {
  it('fills defaults: one logical model over the endpoints, list order as priority, wire from the provider, synthetic base URLs', () => {
    const s = validateScenario(minimal());
    expect(s.models).toEqual({ chat: [{ endpoint: 'primary', model: 'gpt-4o-mini', priority: 0 }, { endpoint: 'backup', model: 'claude-sonnet-4-5', priority: 1 }] });
    expect(s.endpoints.map((e) => [e.vendor, e.baseUrl, e.keys])).toEqual([
      ['openai', 'https://primary.simulated.invalid/v1', 1],
      ['anthropic', 'https://backup.simulated.invalid/v1', 1],
    ]);
    expect(s.traffic).toMatchObject({ intervalMs: 30_000, jitter: 0, streamShare: 0, models: [{ model: 'chat', share: 1 }] });
    expect(s.bucketMs).toBe(defaultBucketMs(D));
    expect(D / s.bucketMs).toBeLessThanOrEqual(500);
  });

  it('names the field that is wrong', () => {
    const withFault = (fault: Record<string, unknown>) => ({ ...minimal(), endpoints: [{ ...minimal().endpoints[0], keys: 2, faults: [fault] }] });
    rejects(withFault({ fault: 'meltdown' }), 'endpoints[0].faults[0].fault', /unknown fault "meltdown" \(known: ok, rate-limited/);
    rejects(withFault({ fault: 'unavailable', when: { between: ['2h', '1h'] } }), 'endpoints[0].faults[0].when.between', /end must be after start/);
    rejects(withFault({ fault: 'unavailable', when: { betwen: ['1h', '2h'] } }), 'endpoints[0].faults[0].when.betwen', /unknown field/);
    rejects(withFault({ fault: 'out-of-credit', key: 2 }), 'endpoints[0].faults[0].key', /key index 2 does not exist \(the endpoint has 2 keys/);
    rejects(withFault({ fault: 'server-error', when: { brownout: 1.5 } }), 'endpoints[0].faults[0].when.brownout', /between 0 and 1/);
    rejects(withFault({ fault: 'rate-limited', when: { every: '1d' } }), 'endpoints[0].faults[0].when.every', /need both every and for/);
    rejects({ ...minimal(), duration: 'forever' }, 'duration', /expected a duration/);
    rejects({ ...minimal(), traffic: { every: '0s' } }, 'traffic.every', /longer than 0/);
    rejects({ ...minimal(), traffic: { every: '30s', model: 'gpt' } }, 'traffic.model', /no logical model "gpt"/);
    rejects({ ...minimal(), models: { chat: [{ endpoint: 'nowhere', model: 'm' }] } }, 'models.chat[0].endpoint', /no endpoint named "nowhere"/);
    rejects({ ...minimal(), models: { chat: [{ endpoint: 'primary', model: 'gpt-5' }] } }, 'models.chat[0].model', /serves gpt-4o-mini, not "gpt-5"/);
    rejects({ ...minimal(), endpoints: [{ name: 'x', provider: 'cohere', models: ['c'] }] }, 'endpoints[0].provider', /set vendor to openai, anthropic or gemini/);
    rejects({ ...minimal(), endpoints: [minimal().endpoints[0], minimal().endpoints[0]] }, 'endpoints[1].name', /duplicate/);
    rejects({ ...minimal(), endpoints: [{ name: 'x', provider: 'openai' }] }, 'endpoints[0].models', /needed when the scenario has no models mapping/);
  });

  it('reads YAML files; bad YAML and missing files are coded errors', async () => {
    const file = fileURLToPath(new URL('./scenarios/twenty-days.yaml', import.meta.url));
    const s = await loadScenarioFile(file);
    expect(s.durationMs).toBe(20 * D);
    expect(s.traffic.intervalMs).toBe(30_000);
    expect(s.endpoints.map((e) => e.name)).toEqual(['primary', 'backup', 'fallback']);
    expect(s.endpoints[0]!.faults.find((f) => f.fault === 'out-of-credit')).toMatchObject({ keys: [1], when: { from: 12 * D } });
    expect(s.plugins).toContain('@switchyard/plugin-circuit-breaker');
    await expect(parseScenario('duration: 1d\ntraffic: [oops', 'bad.yaml')).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_SIMULATION_YAML', message: expect.stringMatching(/^bad\.yaml: invalid YAML at line \d+/) });
    await expect(parseScenario('duration: 1d', 'short.yaml')).rejects.toMatchObject({ code: SCENARIO_ERROR_CODE, message: expect.stringMatching(/^short\.yaml: scenario endpoints: expected a list/) });
    await expect(loadScenarioFile('/nonexistent/scenario.yaml')).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_SIMULATION_READ' });
  });
});

describe('endpoint availability from the schedule', () => {
  const endpoint = (faults: unknown[], keys = 1) => validateScenario({ ...minimal(), endpoints: [{ name: 'e', provider: 'openai', models: ['m'], keys, faults }] }).endpoints[0]!;

  it('a total outage window is down; a brownout or a request fault is not', () => {
    const e = endpoint([
      { fault: 'unavailable', when: { between: ['2h', '5h'] } },
      { fault: 'server-error', when: { brownout: 0.5 } },
      { fault: 'context-length' },
    ]);
    expect(endpointUpAt(e, 1 * H)).toBe(true);
    expect(endpointUpAt(e, 2 * H)).toBe(false);
    expect(endpointUpAt(e, 5 * H)).toBe(true);
  });

  it('an endpoint stays up while one of its keys works', () => {
    const e = endpoint([
      { fault: 'out-of-credit', key: 1, when: { from: '12h' } },
      { fault: 'key-invalid', key: 0, when: { from: '18h' } },
    ], 2);
    expect(endpointUpAt(e, 13 * H)).toBe(true);
    expect(endpointUpAt(e, 19 * H)).toBe(false);
  });

  it('periodic bursts recur', () => {
    const e = endpoint([{ fault: 'rate-limited', when: { every: '1d', for: '15m', offset: '14h' } }]);
    expect([14 * H - 1, 14 * H, 14 * H + 14 * 60_000, 14 * H + 15 * 60_000, D + 14 * H + 60_000].map((t) => endpointUpAt(e, t))).toEqual([true, false, false, true, false]);
  });
});
