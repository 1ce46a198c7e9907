import { describe, expect, it } from 'vitest';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';
import { degrade } from '@switchyard/plugin-degrade';
import { health } from '@switchyard/plugin-health';
import { retry } from '@switchyard/plugin-retry';
import { router } from '@switchyard/plugin-router';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { providers as gemini } from '@switchyard/provider-gemini';
import { providers as openai } from '@switchyard/provider-openai';
import { formatReport } from './format-report.js';
import { renderReportHtml, renderReportSvg } from './render-chart.js';
import type { SimulationReport } from './report.js';
import { runSimulation, type SimulationProgress } from './run-simulation.js';

const H = 3_600_000;
const providers = [...openai, ...anthropic, ...gemini];
const policies = () => [retry(), circuitBreaker(), health(), router()];

const scenario = (extra: Record<string, unknown> = {}) => ({
  name: 'half-day',
  seed: 7,
  duration: '12h',
  report: { bucket: '30m' },
  traffic: { every: '20s', jitter: 0.2, streamShare: 0.3 },
  endpoints: [
    {
      name: 'primary',
      provider: 'openai',
      keys: 2,
      models: ['gpt-4o-mini'],
      latency: { median: '700ms', sigma: 0.5 },
      tokenDelay: '15ms',
      faults: [
        { fault: 'server-error', when: { brownout: 0.3, between: ['1h', '2h'] } },
        { fault: 'unavailable', when: { between: ['3h', '5h'] } },
        { fault: 'rate-limited', retryAfter: '20s', when: { every: '4h', for: '10m', offset: '6h' } },
        { fault: 'out-of-credit', key: 1, when: { from: '9h' } },
        { fault: 'reset', when: { between: ['8h', '8h10m'] } },
      ],
    },
    { name: 'backup', provider: 'anthropic', models: ['claude-sonnet-4-5'], latency: '1s', tokenDelay: '20ms', faults: [{ fault: 'reset', when: { between: ['8h', '8h10m'] } }] },
    { name: 'fallback', provider: 'gemini', models: ['gemini-2.0-flash'], latency: '600ms', faults: [{ fault: 'reset', when: { between: ['8h', '8h10m'] } }] },
  ],
  ...extra,
});

const comparable = ({ run, ...rest }: SimulationReport) => rest;

describe('runSimulation through the real pipeline and policies', () => {
  let report: SimulationReport;
  const progress: SimulationProgress[] = [];

  it('keeps answering while any endpoint is up and reports what happened', async () => {
    report = await runSimulation(scenario(), { providers, plugins: policies(), onProgress: (p) => progress.push(p), progressSteps: 24 });
    expect(report.requests).toBeGreaterThan(2_000);
    expect(report.unfinished).toBe(0);
    expect(report.incompleteAnswers).toBe(0);
    expect(report.whileAnyUp.successRate).toBeGreaterThanOrEqual(0.999);
    // Everything that failed arrived during the ten minutes when every vendor was unreachable.
    expect(report.whileAllDown.requests).toBeGreaterThan(20);
    expect(report.failed).toBe(report.whileAllDown.requests - report.whileAllDown.succeeded + (report.whileAnyUp.requests - report.whileAnyUp.succeeded));
    expect(report.failureSamples.every((f) => f.atMs >= 8 * H && f.atMs < 8 * H + 11 * 60_000)).toBe(true);
    expect(Object.keys(report.failuresByKind).every((k) => ['all-candidates-failed', 'no-candidate'].includes(k))).toBe(true);
    // During the primary's outage the others answer; before it the primary answers nearly everything.
    const bucket = (ms: number) => report.buckets.find((b) => b.startMs === ms)!;
    expect(bucket(4 * H).byEndpoint.primary ?? 0).toBe(0);
    expect(bucket(4 * H).endpointsDown).toEqual(['primary']);
    expect((bucket(0).byEndpoint.primary ?? 0) / bucket(0).succeeded).toBeGreaterThan(0.95);
    expect(report.breakerTrips.byDeployment['primary/gpt-4o-mini#0']).toBeGreaterThan(0);
    expect(report.breakerTrips.timeline[0]!.atMs).toBeGreaterThanOrEqual(1 * H);
    expect(report.failovers).toBeGreaterThan(0);
    expect(report.retries).toBeGreaterThan(0);
    // The vendor's view and the pipeline's view of attempts agree.
    expect(report.upstream.calls).toBe(report.attempts.total);
    expect(report.upstream.amplification).toBeCloseTo(report.upstream.calls / report.requests, 10);
    expect(report.upstream.byFault['out-of-credit']).toBeGreaterThan(0);
    expect(report.attemptFailuresByKind.payment).toBe(report.upstream.byFault['out-of-credit']);
    expect(report.latencyMs.p50).toBeGreaterThan(500);
    expect(report.latencyMs.p50).toBeLessThanOrEqual(report.latencyMs.p95);
    expect(report.latencyMs.p95).toBeLessThanOrEqual(report.latencyMs.p99);
  }, 120_000);

  it('reports progress in order, ending at the whole duration', () => {
    expect(progress.length).toBeGreaterThanOrEqual(20);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.simulatedMs).toBeGreaterThanOrEqual(progress[i - 1]!.simulatedMs);
    expect(progress.at(-1)).toMatchObject({ fraction: 1, requests: report.requests, inFlight: 0 });
  });

  it('renders the report as text with sparklines and as a self-contained chart', () => {
    const text = formatReport(report, { width: 24 });
    expect(text).toMatch(/while any endpoint up\s+[\d,]+ \/ [\d,]+\s+\d{2,3}\.\d{3}%\s+\(meets 99\.9%\)/);
    const lines = text.split('\n');
    const success = lines.find((l) => /^success {3}[▁-█ ]+$/.test(l))!;
    expect(success.trimEnd().length).toBe(10 + 24);
    // The column holding the all-down window shows failures; the first hours show none.
    expect(success.slice(10, 12)).toBe('██');
    expect(success[10 + 16]).not.toBe('█');
    const primary = lines.find((l) => /^primary {3}[▁-█ ]+$/.test(l))!;
    expect(primary[10 + 8]).toBe(' ');
    const svg = renderReportSvg(report);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('<polyline');
    for (const name of ['primary', 'backup', 'fallback']) expect(svg).toContain(`>${name}</text>`);
    const html = renderReportHtml({ ...report, scenario: { ...report.scenario, name: '<script>x</script>' } });
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).not.toContain('<script>');
  });
});

describe('runSimulation determinism and control', () => {
  const short = () => scenario({ duration: '3h', report: { bucket: '15m' } });

  it('the same seed gives the same report; another seed does not', async () => {
    const a = await runSimulation(short(), { providers, plugins: policies() });
    const b = await runSimulation(short(), { providers, plugins: policies() });
    const c = await runSimulation({ ...short(), seed: 8 }, { providers, plugins: policies() });
    expect(comparable(b)).toEqual(comparable(a));
    expect(comparable(c)).not.toEqual(comparable(a));
  }, 120_000);

  it('stops early when aborted and says so', async () => {
    const controller = new AbortController();
    const r = await runSimulation(short(), { providers, plugins: policies(), onProgress: (p) => p.fraction >= 0.5 && controller.abort(), signal: controller.signal });
    expect(r.run.aborted).toBe(true);
    expect(r.requests).toBeGreaterThan(200);
    expect(r.requests).toBeLessThan(400);
  });

  it('a stream cut after the commit point is a clean failure, never a truncated success', async () => {
    const r = await runSimulation(
      {
        duration: '2h',
        seed: 3,
        traffic: { every: '30s', streamShare: 1 },
        endpoints: [
          { name: 'a', provider: 'openai', models: ['m'], faults: [{ fault: 'stream-cut', afterTokens: 3, when: { brownout: 0.2 } }] },
          { name: 'b', provider: 'openai', models: ['m'] },
        ],
      },
      { providers, plugins: policies() },
    );
    // The peer dies mid-event: the socket error (kind network) ends the committed stream.
    expect(r.failuresByKind.network).toBeGreaterThan(10);
    expect(r.failed).toBe(r.failuresByKind.network);
    expect(r.incompleteAnswers).toBe(0);
  });

  it('counts degraded answers by level: a canned answer while every vendor is down', async () => {
    const r = await runSimulation(
      {
        duration: '2h',
        traffic: { every: '30s', streamShare: 0.5 },
        endpoints: [{ name: 'only', provider: 'openai', models: ['m'], faults: [{ fault: 'unavailable', when: { between: ['1h', '1h20m'] } }] }],
      },
      { providers, plugins: [...policies(), degrade({ levels: [{ type: 'canned', text: 'Please try again shortly.' }] })] },
    );
    expect(r.successRate).toBe(1);
    expect(r.incompleteAnswers).toBe(0);
    expect(Object.values(r.degraded)).toEqual([r.whileAllDown.requests]);
    expect(r.whileAllDown.requests).toBeGreaterThanOrEqual(39);
  });

  it('a provider the caller did not pass is a coded configuration error', async () => {
    await expect(runSimulation(short(), { providers: openai, plugins: policies() })).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path: 'endpoints.backup.provider' });
  });
});
