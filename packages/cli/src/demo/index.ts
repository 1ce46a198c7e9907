/**
 * `pnpm demo` / `switchyard demo`: three mock vendors on loopback (OpenAI-, Anthropic- and
 * Gemini-style, real wire formats, real sockets), a pipeline with the default policy plugins,
 * and the primary broken in the ways real vendors break. No keys, no network.
 */
import { createPipeline, type ChatRequest, type Pipeline, type StreamPart, type SwitchyardError } from '@switchyard/core';
import { startFaultServer, type FaultServer } from '@switchyard/simulate';
import { providers as openaiProviders } from '@switchyard/provider-openai';
import { providers as anthropicProviders } from '@switchyard/provider-anthropic';
import { providers as geminiProviders } from '@switchyard/provider-gemini';
import { getRetryControl, retry, scopesOf } from '@switchyard/plugin-retry';
import { circuitBreaker, getBreaker } from '@switchyard/plugin-circuit-breaker';
import { router } from '@switchyard/plugin-router';
import { hedge } from '@switchyard/plugin-hedge';
import { quota, getUsage, formatUsageReport } from '@switchyard/plugin-quota';
import { degrade } from '@switchyard/plugin-degrade';
import { SCENES, type Scene } from './scenes.js';
import { renderTable } from '../table.js';

export interface DemoOptions {
  out: { write(text: string): unknown };
  /** Scenes to run (default: all). */
  scenes?: Scene[];
}

interface Row {
  scene: string;
  call: string;
  answeredBy: string;
  attempts: string;
  primaryHits: string;
  latency: string;
  result: string;
}

const TIMEOUTS = { headersMs: 1500, firstTokenMs: 1500, idleMs: 1500, attemptMs: 3000 };

function makePipeline(primary: FaultServer, secondary: FaultServer, tertiary: FaultServer): Pipeline {
  return createPipeline({
    endpoints: [
      { name: 'openai', provider: 'openai', baseUrl: primary.url, apiKey: 'sk-demo-openai-not-a-real-key', timeouts: TIMEOUTS },
      { name: 'anthropic', provider: 'anthropic', baseUrl: secondary.url, apiKey: 'sk-ant-demo-not-a-real-key', timeouts: TIMEOUTS },
      { name: 'gemini', provider: 'gemini', baseUrl: tertiary.url, apiKey: 'demo-gemini-not-a-real-key', timeouts: TIMEOUTS },
    ],
    models: {
      chat: [
        { endpoint: 'openai', model: 'gpt-4o-mini', priority: 0 },
        { endpoint: 'anthropic', model: 'claude-sonnet-4-5', priority: 1, capabilities: ['tools', 'vision', 'prefill', 'stream'] },
        { endpoint: 'gemini', model: 'gemini-2.5-flash', priority: 2 },
      ],
    },
    plugins: [
      ...openaiProviders,
      ...anthropicProviders,
      ...geminiProviders,
      quota(),
      circuitBreaker({ consecutiveFailures: 3, baseOpenMs: 30_000 }),
      retry({ maxRetryAfterWaitMs: 2000 }),
      router(),
      hedge({ tiers: { '*': { continuation: true } } }),
      degrade({ levels: [{ type: 'canned', text: 'Our assistant is busy right now; your request has been saved and will be answered shortly.' }] }),
    ],
  });
}

const request = (i: number, stream: boolean): ChatRequest => ({
  model: 'chat',
  messages: [{ role: 'user', content: `Demo question #${i}: what keeps an LLM call answering?` }],
  stream,
});

async function readStream(pipeline: Pipeline, req: ChatRequest) {
  const continuedOn: string[] = [];
  const stream = await pipeline.stream(req);
  const onFailover = (e: { from: { endpoint: { name: string } }; to: { endpoint: { name: string } } }) => {
    if (e.from.endpoint.name === stream.info.endpoint) continuedOn.push(e.to.endpoint.name);
  };
  pipeline.events.on('failover', onFailover);
  let text = '';
  let error: SwitchyardError | undefined;
  let finished = false;
  for await (const part of stream as AsyncIterable<StreamPart>) {
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'finish') finished = true;
    if (part.type === 'error') error = part.error;
  }
  pipeline.events.off('failover', onFailover);
  return { text, error, finished, info: stream.info, continuedOn };
}

/** Each scene starts from closed breakers and no cooldowns, so what it shows is its own doing. */
async function resetPolicies(pipeline: Pipeline): Promise<void> {
  const breakers = getBreaker(pipeline);
  const cooldowns = getRetryControl(pipeline);
  for (const candidate of pipeline.candidatesFor('chat')) {
    await breakers.forceClose(candidate.deploymentId);
    for (const scope of scopesOf(candidate)) await cooldowns.clearCooldown(scope);
  }
}

async function runScene(scene: Scene, pipeline: Pipeline, servers: FaultServer[], counter: { n: number }): Promise<Row[]> {
  const [primary, secondary, tertiary] = servers;
  await resetPolicies(pipeline);
  primary.setScenario(scene.primary, scene.primaryOptions);
  secondary.setScenario(scene.secondary ?? 'ok', { tokens: 24 });
  tertiary.setScenario(scene.tertiary ?? 'ok');
  const rows: Row[] = [];
  for (let i = 0; i < scene.requests; i++) {
    const before = primary.requests.length;
    const started = performance.now();
    const attemptsBefore = counter.n;
    let answeredBy = '-';
    let result: string;
    try {
      if (scene.stream) {
        const r = await readStream(pipeline, request(i, true));
        answeredBy = r.info.endpoint + r.continuedOn.map((e) => ` → ${e} (continued)`).join('');
        result = r.error ? `error part: ${r.error.kind} (never a silent cut)` : r.finished ? `complete stream, ${r.text.split(' ').filter(Boolean).length} words` : 'incomplete';
      } else {
        const r = await pipeline.chat(request(i, false));
        answeredBy = r.switchyard?.degraded ? `degraded: ${r.switchyard.degraded}` : `${r.switchyard?.endpoint} (${r.model})`;
        result = r.switchyard?.degraded ? 'labelled degraded answer' : 'complete answer';
      }
    } catch (error) {
      const e = error as SwitchyardError;
      result = `clean error: ${e.code}`;
    }
    rows.push({
      scene: i === 0 ? scene.title : '',
      call: scene.stream ? 'stream' : 'chat',
      answeredBy,
      attempts: String(counter.n - attemptsBefore),
      primaryHits: String(primary.requests.length - before),
      latency: `${Math.round(performance.now() - started)} ms`,
      result,
    });
  }
  return rows;
}

export async function runDemo({ out, scenes = SCENES }: DemoOptions): Promise<void> {
  const servers = await Promise.all([
    startFaultServer({ vendor: 'openai' }),
    startFaultServer({ vendor: 'anthropic' }),
    startFaultServer({ vendor: 'gemini' }),
  ]);
  const pipeline = makePipeline(servers[0], servers[1], servers[2]);
  const counter = { n: 0 };
  const events: string[] = [];
  pipeline.events.on('attempt:end', () => counter.n++);
  pipeline.events.on('breaker:open', (e) => events.push(`breaker opened on ${e.deployment} (${e.reason})`));
  pipeline.events.on('breaker:half-open', (e) => events.push(`breaker half-open on ${e.deployment}`));
  pipeline.events.on('degraded', (e) => events.push(`request ${e.requestId} degraded to "${e.level}"`));

  out.write('Switchyard demo: three mock vendors on 127.0.0.1 (OpenAI, Anthropic and Gemini wire formats),\n');
  out.write('one logical model "chat" = openai/gpt-4o-mini → anthropic/claude-sonnet-4-5 → gemini/gemini-2.5-flash.\n');
  out.write('Plugins: retry, circuit breaker, router, continuation, quota, degrade. Limits: first token 1.5 s, idle 1.5 s.\n\n');
  const all: Row[] = [];
  try {
    for (const scene of scenes) {
      const rows = await runScene(scene, pipeline, servers, counter);
      all.push(...rows);
      out.write(`▸ ${scene.title}: ${scene.lesson}\n`);
    }
    out.write('\n');
    out.write(
      renderTable(
        ['scene', 'call', 'answered by', 'attempts', 'primary saw', 'latency', 'caller got'],
        all.map((r) => [r.scene, r.call, r.answeredBy, r.attempts, r.primaryHits, r.latency, r.result]),
      ),
    );
    if (events.length) out.write(`\nEvents:\n${[...new Set(events)].map((e) => `  - ${e}`).join('\n')}\n`);
    out.write(`\nUsage and cost per attempt (vendor error answers are not billed; a cut stream or timeout the vendor worked on is billed as an estimate):\n${formatUsageReport(getUsage(pipeline))}\n`);
    out.write('\nThe mock vendors answer a continuation from the start (a real vendor continues the prefill),');
    out.write('\nso continued streams above repeat a few words. Nothing else in this demo is simulated: real sockets,\n');
    out.write('real wire formats, the real pipeline and plugins.\n');
    out.write('\nVendor view (requests each mock vendor received): ');
    out.write(servers.map((s, i) => `${['openai', 'anthropic', 'gemini'][i]} ${s.requests.length}`).join(', ') + '\n');
  } finally {
    await pipeline.close();
    await Promise.all(servers.map((s) => s.close()));
  }
}
