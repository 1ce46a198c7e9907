/** Issue 38: a stream cut mid-answer and continued elsewhere, as the logs, the books and the client see it. */
import { afterEach, expect, it } from 'vitest';
import { startFaultServer, type FaultServer } from '@switchyard/simulate';
import { raw, stopAll } from './support/harness.js';
import { recordingLogger } from './support/log-recorder.js';
import { MODEL, pipelineOf, scriptedVendor, startMessagesGateway } from './support/messages.js';

const faults: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(faults.splice(0).map((f) => f.close()));
  await stopAll();
});

it('books the request to the deployment that finished it, logs the cut attempt, and tells the client it was continued', async () => {
  const claude = await startFaultServer({ vendor: 'anthropic', scenario: 'stream-cut', options: { afterTokens: 3 } });
  faults.push(claude);
  const deepseek = await scriptedVendor('deepseek', () => ({ text: 'jumps over the lazy dog.' }));
  const pipeline = pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'deepseek', kind: 'deepseek', url: deepseek.url }]);
  const ended: { continuedFrom?: string; endpoint?: string; deployment?: string; model?: string }[] = [];
  pipeline.events.on('request:end', (e) => ended.push({ ...e.response?.switchyard, model: e.response?.model }));
  const logger = recordingLogger();
  const { origin } = await startMessagesGateway(pipeline, { logger, server: { exposeUpstream: true } });

  const res = await raw(origin, '/v1/messages', { body: JSON.stringify({ model: MODEL, max_tokens: 300, stream: true, messages: [{ role: 'user', content: 'Tell me about foxes.' }] }) });
  expect(res.text).toContain(': switchyard-continued from=claude/');
  await expect.poll(() => logger.lines.find((l) => l.event === 'access')).toBeDefined();

  const access = logger.lines.find((l) => l.event === 'access')!;
  const continuing = pipeline.candidatesFor(MODEL).find((c) => c.endpoint.name === 'deepseek')!;
  expect(access).toMatchObject({ outcome: 'success', endpoint: 'deepseek', upstreamModel: continuing.model, attempts: 2 });
  const cut = logger.lines.find((l) => l.event === 'attempt_failed');
  expect(cut).toMatchObject({ endpoint: 'claude', attempt: 1, errorKind: expect.stringMatching(/stream-cut|network/), decision: 'next-candidate', reason: 'stream cut after commit: continued elsewhere' });
  expect(ended).toEqual([{ ...ended[0], endpoint: 'deepseek', deployment: continuing.deploymentId, model: continuing.model, continuedFrom: expect.stringMatching(/^claude\//) }]);
});
