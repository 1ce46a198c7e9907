/**
 * POST /v1/messages/count_tokens: exact where a vendor counts (Anthropic's count_tokens, Gemini's
 * countTokens), tried in the model's order with a failure moving to the next; an estimate,
 * marked as one, when nobody can count.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { raw, stopAll, vendor } from './support/harness.js';
import { AGENT_HEADERS, agentRequest, firstTurn, MODEL, pipelineOf, scriptedVendor, startMessagesGateway, VENDOR_KEYS } from './support/messages.js';

afterEach(stopAll);

const countBody = (extra: Record<string, unknown> = {}) => ({ model: MODEL, system: 'Be brief.', messages: [{ role: 'user', content: 'How many tokens is this?' }], ...extra });

/** A vendor that counts: Anthropic answers `{input_tokens}` on /messages/count_tokens, Gemini `{totalTokens}` on :countTokens. */
function counting(count: number, status = 200) {
  return vendor((req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    if (status !== 200) return void res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    res.end(JSON.stringify((req.url ?? '').includes(':countTokens') ? { totalTokens: count } : { input_tokens: count }));
  });
}

describe('count_tokens', () => {
  it("Anthropic counts exactly, from the client's own request (betas and fields it alone knows included)", async () => {
    const claude = await counting(1234);
    const { anthropic, origin } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }]));
    const request = agentRequest(firstTurn);
    const { max_tokens: _max, stream: _stream, metadata: _metadata, ...countable } = request;
    const { data, response } = await anthropic.messages.countTokens(countable, { headers: AGENT_HEADERS }).withResponse();
    expect(data).toEqual({ input_tokens: 1234 });
    expect(response.headers.get('x-switchyard-token-count')).toBe('exact');
    expect(response.headers.get('x-switchyard-endpoint')).toBe('claude');
    const sent = claude.requests[0]!;
    expect(sent.path).toBe('/v1/messages/count_tokens');
    expect(JSON.parse(sent.body)).toEqual({ ...countable, model: 'claude-sonnet-4-5-20250929' });
    expect(sent.headers).toMatchObject({ 'anthropic-beta': AGENT_HEADERS['anthropic-beta'], 'x-api-key': VENDOR_KEYS.anthropic });
    // The same answer without the SDK.
    const res = await raw(origin, '/v1/messages/count_tokens', { body: JSON.stringify(countBody()) });
    expect(res.json).toEqual({ input_tokens: 1234 });
  });

  it('a failing counter falls back to the next one in the model’s order; Gemini counts with countTokens', async () => {
    const claude = await counting(0, 529);
    const openai = await scriptedVendor('openai', () => ({ text: 'unused' }));
    const gemini = await counting(77);
    const { origin } = await startMessagesGateway(
      pipelineOf([
        { name: 'claude', kind: 'anthropic', url: claude.url },
        { name: 'openai', kind: 'openai', url: openai.url },
        { name: 'gemini', kind: 'gemini', url: gemini.url },
      ]),
    );
    const res = await raw(origin, '/v1/messages/count_tokens', { body: JSON.stringify(countBody()) });
    expect(res.json).toEqual({ input_tokens: 77 });
    expect(res.headers.get('x-switchyard-token-count')).toBe('exact');
    expect(res.headers.get('x-switchyard-endpoint')).toBe('gemini');
    expect(claude.requests).toHaveLength(1);
    // OpenAI has no count endpoint: it is passed over, not asked.
    expect(openai.requests).toHaveLength(0);
    expect(gemini.requests[0]!.path).toBe('/v1/models/gemini-2.5-flash:countTokens');
    expect(JSON.parse(gemini.requests[0]!.body)).toEqual({
      generateContentRequest: { model: 'models/gemini-2.5-flash', contents: [{ role: 'user', parts: [{ text: 'How many tokens is this?' }] }], systemInstruction: { parts: [{ text: 'Be brief.' }] } },
    });
  });

  it('with no vendor able to count, an estimate marked as one', async () => {
    const claude = await vendor((_req, res) => void res.destroy());
    const deepseek = await scriptedVendor('deepseek', () => ({ text: 'unused' }));
    const { origin } = await startMessagesGateway(pipelineOf([{ name: 'claude', kind: 'anthropic', url: claude.url }, { name: 'deepseek', kind: 'deepseek', url: deepseek.url }]));
    const short = await raw(origin, '/v1/messages/count_tokens', { body: JSON.stringify(countBody()) });
    expect(short.status).toBe(200);
    expect(short.headers.get('x-switchyard-token-count')).toBe('estimate');
    expect(short.headers.get('x-switchyard-endpoint')).toBeNull();
    // Two messages of framing and ~34 characters of text.
    expect(short.json).toEqual({ input_tokens: 2 * 4 + Math.ceil('Be brief.How many tokens is this?'.length / 4) });
    // Text, tools and images all weigh in.
    const long = await raw(origin, '/v1/messages/count_tokens', {
      body: JSON.stringify(countBody({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x'.repeat(4000) }, { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }], tools: agentRequest([]).tools })),
    });
    expect(long.json.input_tokens).toBeGreaterThan(1000 + 1600);
    expect(deepseek.requests).toHaveLength(0);
  });

  it('an unknown model is a 404, a request no target can take a 400 naming the field', async () => {
    const deepseek = await scriptedVendor('deepseek', () => ({ text: 'unused' }));
    const { origin } = await startMessagesGateway(pipelineOf([{ name: 'deepseek', kind: 'deepseek', url: deepseek.url }]));
    const unknown = await raw(origin, '/v1/messages/count_tokens', { body: JSON.stringify(countBody({ model: 'claude-opus-9' })) });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('unknown model "claude-opus-9"') } });
    const pdf = { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } };
    const refused = await raw(origin, '/v1/messages/count_tokens', { body: JSON.stringify(countBody({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, pdf] }] })) });
    expect(refused.status).toBe(400);
    expect(refused.json.error.message).toMatch(/^messages\[0\]\.content\[1\]: a document \(deepseek has no document input\)/);
  });
});
