/**
 * The `openai` fault server also answers the Responses API (`POST /responses`), in the shapes
 * the official `openai` SDK parses: healthy JSON and SSE (its stream helper accumulates the
 * answer), and the catalogue's faults in that API's wire (error bodies, `response.failed`,
 * a cut stream). Chat Completions keeps answering on `/chat/completions`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI, { RateLimitError } from 'openai';
import { healthyText, startFaultServer, type FaultServer, type FaultServerOptions } from '../src/index.js';

const servers: FaultServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Omit<FaultServerOptions, 'vendor'>): Promise<{ server: FaultServer; client: OpenAI }> {
  const server = await startFaultServer({ vendor: 'openai', ...options });
  servers.push(server);
  return { server, client: new OpenAI({ baseURL: server.url, apiKey: 'sk-chaos', maxRetries: 0 }) };
}

describe('fault server: the OpenAI Responses API', () => {
  it('answers healthy JSON and SSE the SDK parses, echoing the request', async () => {
    const { server, client } = await start({});
    const json = await client.responses.create({ model: 'gpt-5-mini', input: 'hi', instructions: 'Be brief.', metadata: { run: '1' } });
    expect(json).toMatchObject({ id: 'resp_chaos1', object: 'response', status: 'completed', model: 'gpt-5-mini', instructions: 'Be brief.', metadata: { run: '1' }, output_text: healthyText() });
    expect(json.usage).toMatchObject({ output_tokens: 8, total_tokens: 20 });

    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'gpt-5-mini', input: 'hi', stream: true })) events.push(event);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(8);

    const final = await client.responses.stream({ model: 'gpt-5-mini', input: 'hi' }).finalResponse();
    expect(final.output_text).toBe(healthyText());
    expect(server.requests.map((r) => [r.path, r.outcome])).toEqual([['/v1/responses', 200], ['/v1/responses', 200], ['/v1/responses', 200]]);

    // Chat Completions is still Chat Completions.
    const chat = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]!.message.content).toBe(healthyText());
  });

  it('plays the faults in the Responses wire', async () => {
    const { server, client } = await start({ scenario: 'rate-limited', options: { retryAfterS: 3 } });
    const limited = await client.responses.create({ model: 'm', input: 'hi' }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).headers?.get('retry-after')).toBe('3');

    server.setScenario('context-length');
    const tooLong = await client.responses.create({ model: 'm', input: 'hi' }).catch((e: { error?: { param?: string; code?: string } }) => e);
    expect(tooLong).toMatchObject({ status: 400, error: { code: 'context_length_exceeded', param: 'input' } });

    server.setScenario('stream-error', { afterTokens: 2 });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of await client.responses.create({ model: 'm', input: 'hi', stream: true })) events.push(event);
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => (e as { delta: string }).delta)).toEqual(['The ', 'quick ']);
    expect(events.at(-1)).toMatchObject({ type: 'response.failed', sequence_number: 6, response: { status: 'failed', error: { code: 'server_error' } } });

    server.setScenario('stream-cut', { afterTokens: 1 });
    const cut = client.responses.stream({ model: 'm', input: 'hi' });
    await expect(cut.finalResponse()).rejects.toThrow();
  });
});
