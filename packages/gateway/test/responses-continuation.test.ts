/**
 * Issue 36: a Responses client's stream cut mid-answer continues on another OpenAI Responses
 * deployment, in the client's dialect: the client's body (its tools, store left to the gateway)
 * plus the partial answer as a trailing assistant output message; the client gets one answer
 * stitched into the items it already holds, with one terminal event.
 */
import { afterEach, expect, it } from 'vitest';
import type OpenAI from 'openai';
import { createPipeline } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { openaiProvider } from '@switchyard/provider-openai';
import { healthyText, startFaultServer, type FaultServer } from '@switchyard/simulate';
import { raw, startGateway, stopAll, vendor, VENDOR_KEY } from './support/harness.js';
import { responsesVendor } from './support/scripted-vendors.js';

const faults: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(faults.splice(0).map((f) => f.close()));
  await stopAll();
});

const PARTIAL = 'The quick brown ';
const TOOLS = [{ type: 'function' as const, name: 'read_file', description: 'Reads a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, strict: false }];

async function cutThenResponses() {
  const primary = await startFaultServer({ vendor: 'openai', scenario: 'stream-cut', options: { afterTokens: 3 } });
  faults.push(primary);
  const rest = healthyText().slice(PARTIAL.length);
  // OpenAI takes the trailing assistant message as its own answer so far and writes the rest.
  const backup = await vendor(responsesVendor((body) => (JSON.parse(body).input.at(-1)?.content?.[0]?.text === PARTIAL ? { text: rest.split(/(?<= )/) } : { text: ['wrong continuation'] })));
  const pipeline = createPipeline({
    endpoints: [
      { name: 'primary', provider: 'openai', baseUrl: primary.url, apiKey: VENDOR_KEY },
      { name: 'backup', provider: 'openai', baseUrl: backup.url, apiKey: VENDOR_KEY },
    ],
    models: { chat: [{ endpoint: 'primary', model: 'gpt-a' }, { endpoint: 'backup', model: 'gpt-b' }] },
    providers: [openaiProvider, anthropicProvider],
  });
  return { backup, ...(await startGateway(pipeline)) };
}

it('continues on another Responses deployment: the client’s body, its tools, the partial answer as a trailing assistant item, not stored at the vendor', async () => {
  const { client, backup } = await cutThenResponses();
  const stream = await client.responses.create({ model: 'chat', input: 'Tell me about foxes.', instructions: 'Be brief.', tools: TOOLS, store: true, stream: true });
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);

  expect(backup.requests).toHaveLength(1);
  const sent = JSON.parse(backup.requests[0]!.body);
  expect(sent).toMatchObject({ model: 'gpt-b', stream: true, store: false, instructions: 'Be brief.', tools: TOOLS });
  expect(sent).not.toHaveProperty('previous_response_id');
  expect(sent.input).toEqual([
    { role: 'user', content: 'Tell me about foxes.' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: PARTIAL, annotations: [] }] },
  ]);

  // One answer: one head, contiguous sequence numbers, every delta in the item the cut vendor opened, one terminal event.
  expect(events.filter((e) => e.type === 'response.created')).toHaveLength(1);
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  const deltas = events.filter((e): e is OpenAI.Responses.ResponseTextDeltaEvent => e.type === 'response.output_text.delta');
  expect(deltas.map((d) => d.delta).join('')).toBe(healthyText());
  expect(new Set(deltas.map((d) => d.item_id)).size).toBe(1);
  const terminal = events.filter((e) => e.type === 'response.completed' || e.type === 'response.failed' || e.type === 'response.incomplete');
  expect(terminal).toHaveLength(1);
  const completed = terminal[0] as OpenAI.Responses.ResponseCompletedEvent;
  expect(completed.type).toBe('response.completed');
  expect(completed.response.id).toBe((events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id);
  expect(completed.response.output).toHaveLength(1);
  expect(completed.response.output[0]).toMatchObject({ type: 'message', status: 'completed', content: [expect.objectContaining({ text: healthyText() })] });
  // The cut vendor reported no usage before the cut: the continuation's is the answer's.
  expect(completed.response.usage).toMatchObject({ input_tokens: 11, output_tokens: 7 });
});

it('the continued answer is stored under the id the client saw, and its next turn expands it', async () => {
  const { client, backup, origin } = await cutThenResponses();
  const final = await client.responses.stream({ model: 'chat', input: 'Tell me about foxes.' }).finalResponse();
  expect(final.output_text).toBe(healthyText());
  const stored = await raw(origin, `/v1/responses/${final.id}`, { method: 'GET' });
  expect(stored.status).toBe(200);
  expect(stored.json.output[0].content[0].text).toBe(healthyText());
  const next = await client.responses.create({ model: 'chat', input: 'And wolves?', previous_response_id: final.id });
  const items = await raw(origin, `/v1/responses/${next.id}/input_items?order=asc`, { method: 'GET' });
  expect(items.json.data.map((i: { role?: string }) => i.role)).toEqual(['user', 'assistant', 'user']);
  expect(JSON.stringify(items.json.data[1])).toContain(healthyText());
  expect(backup.requests.length).toBeGreaterThan(0);
});
