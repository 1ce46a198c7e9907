import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, seededRandom } from '@switchyard/core';
import { openaiProvider } from '@switchyard/provider-openai';
import { degrade } from '@switchyard/plugin-degrade';
import { fails, GATEWAY_KEY, startGateway, stopAll, VENDOR_KEY, vendor } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';

let dir: string | undefined;
afterEach(async () => {
  await stopAll();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('degradation through the gateway', () => {
  it('a missed objective switches on its plan: queued canned answers with x-switchyard-queued, the objective on /status and in the logs', async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchyard-gw-slo-'));
    const primary = await vendor(fails(503, 'overloaded'));
    const logger = recordingLogger();
    const pipeline = createPipeline({
      endpoints: [{ name: 'primary', provider: 'openai', baseUrl: primary.url, apiKey: VENDOR_KEY }],
      models: { chat: [{ endpoint: 'primary', model: 'gpt-4o' }] },
      providers: [openaiProvider],
      random: seededRandom(3),
      plugins: [
        degrade({
          queueFile: join(dir, 'queue.jsonl'),
          slo: [{ name: 'chat-up', model: 'chat', target: 0.9, minSamples: 3, probeShare: 0.01, then: { degrade: [{ type: 'canned', text: 'Busy: we will answer shortly.', queue: true }] } }],
        }),
      ],
    });
    const { client, origin } = await startGateway(pipeline, { logger });
    for (let i = 0; i < 3; i++) await expect(client.chat.completions.create(ask)).rejects.toThrow();

    const sent = primary.requests.length;
    const { data, response } = await client.chat.completions.create(ask, { headers: { 'x-request-id': 'client-77' } }).withResponse();
    expect(data.choices[0].message.content).toBe('Busy: we will answer shortly.');
    expect(response.headers.get('x-switchyard-degraded')).toBe('canned');
    expect(response.headers.get('x-switchyard-queued')).toBe('client-77');
    expect(primary.requests.length).toBe(sent);
    const streamed = await client.chat.completions.create({ ...ask, stream: true }).withResponse();
    expect(streamed.response.headers.get('x-switchyard-queued')).toMatch(/^req_/);
    for await (const _ of streamed.data) void _;

    const report = await (await fetch(`${origin}/status`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).json();
    expect(report.slos).toEqual([{ name: 'chat-up', state: 'breached', scope: 'model:chat', since: expect.stringMatching(/^\d{4}-/), successRate: 0, samples: 3, target: 0.9, recoverAt: 0.95, actions: ['degrade:canned'] }]);
    const page = await (await fetch(`${origin}/status.html`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } })).text();
    expect(page).toContain('<h2>Objectives</h2>');
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'warn', event: 'slo_breached', slo: 'chat-up', actions: ['degrade:canned'] }));
  });
});
