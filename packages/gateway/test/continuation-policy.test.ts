/**
 * Issue 36: a continuation passes the same checks as a first attempt. A Messages client's cut
 * answer continues on a deployment of another API only when that deployment could have taken the
 * request at first (its capabilities), and the continuation keeps the client's tools.
 */
import { afterEach, expect, it } from 'vitest';
import { startFaultServer, type FaultServer } from '@switchyard/simulate';
import { raw, stopAll } from './support/harness.js';
import { createPipeline, type ProviderV1 } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import providers from '@switchyard/provider-openai';
import { AGENT_TOOLS, MODEL, pipelineOf, scriptedVendor, startMessagesGateway, VENDOR_KEYS } from './support/messages.js';

const faults: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(faults.splice(0).map((f) => f.close()));
  await stopAll();
});

async function cutThenDeepseek() {
  const claude = await startFaultServer({ vendor: 'anthropic', scenario: 'stream-cut', options: { afterTokens: 3 } });
  faults.push(claude);
  const deepseek = await scriptedVendor('deepseek', () => ({ text: 'jumps over the lazy dog.' }));
  const pipeline = pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'deepseek', kind: 'deepseek', url: deepseek.url }]);
  const { origin } = await startMessagesGateway(pipeline);
  return { origin, deepseek };
}

it('a request only Anthropic can take is not continued on a vendor of another API: the stream ends with the error event', async () => {
  const { origin, deepseek } = await cutThenDeepseek();
  // `container` is a capability in the Messages table: a first attempt would skip deepseek too.
  const body = { model: MODEL, max_tokens: 300, stream: true, container: 'container_011', messages: [{ role: 'user', content: 'Tell me about foxes.' }] };
  const res = await raw(origin, '/v1/messages', { body: JSON.stringify(body) });
  expect(res.text).toContain('event: error');
  expect(res.text).not.toContain('switchyard-continued');
  expect(deepseek.requests).toHaveLength(0);
});

it('a continuation on a vendor of another API keeps the client’s tools', async () => {
  const { origin, deepseek } = await cutThenDeepseek();
  const body = { model: MODEL, max_tokens: 300, stream: true, tools: AGENT_TOOLS, messages: [{ role: 'user', content: 'Tell me about foxes.' }] };
  const res = await raw(origin, '/v1/messages', { body: JSON.stringify(body) });
  expect(res.text).toContain('switchyard-continued');
  expect(deepseek.requests).toHaveLength(1);
  const sent = JSON.parse(deepseek.requests[0]!.body);
  expect(sent.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(AGENT_TOOLS.map((t) => t.name));
  expect(sent.messages.at(-1).role).toBe('assistant');
});

async function cutThenOther(change: Partial<ProviderV1>) {
  const claude = await startFaultServer({ vendor: 'anthropic', scenario: 'stream-cut', options: { afterTokens: 3 } });
  faults.push(claude);
  const vendor = await scriptedVendor('deepseek', () => ({ text: 'jumps over the lazy dog.' }));
  const deepseek = providers.find((p) => p.id === 'deepseek')!;
  const other: ProviderV1 = { ...deepseek, id: 'other', ...change };
  const pipeline = createPipeline({
    endpoints: [
      { name: 'claude', provider: 'anthropic', baseUrl: claude.url, apiKey: VENDOR_KEYS.anthropic },
      { name: 'other', provider: 'other', baseUrl: vendor.url, apiKey: VENDOR_KEYS.deepseek },
    ],
    models: { [MODEL]: [{ endpoint: 'claude', model: 'claude-sonnet-4-5-20250929' }, { endpoint: 'other', model: 'deepseek-chat', capabilities: ['prefill', 'stream', 'tools'] }] },
    providers: [anthropicProvider, other],
  });
  const { origin } = await startMessagesGateway(pipeline);
  const res = await raw(origin, '/v1/messages', { body: JSON.stringify({ model: MODEL, max_tokens: 300, stream: true, messages: [{ role: 'user', content: 'Tell me about foxes.' }] }) });
  return { text: res.text, vendor };
}

it('a continuation its provider cannot express is not sent: the same check a first attempt gets', async () => {
  // A vendor that takes the first request but not an assistant turn last (its `unsupported` check).
  const { text, vendor } = await cutThenOther({ unsupported: (request) => (request.messages.at(-1)?.role === 'assistant' ? { path: 'messages', reason: 'no assistant prefill' } : undefined) });
  expect(text).toContain('event: error');
  expect(vendor.requests).toHaveLength(0);
});

it('a provider that finds no valid continuation leaves its deployment out: the stream ends with the error event', async () => {
  const { text, vendor } = await cutThenOther({ continuation: () => undefined });
  expect(text).toContain('event: error');
  expect(text).not.toContain('switchyard-continued');
  expect(vendor.requests).toHaveLength(0);
});
