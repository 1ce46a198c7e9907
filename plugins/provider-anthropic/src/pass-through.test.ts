import { afterEach, describe, expect, it } from 'vitest';
import { type ChatRequest, type StreamPart } from '@switchyard/core';
import { ANTHROPIC_MESSAGES, setRequestOrigin, wireBodyOf, wireTextOf } from '@switchyard/core/wire';
import { anthropicProvider } from './index.js';
import { anthropicRig, cassette, fixtureJson, json, replay, type TestRig } from '../test/support.js';

let rig: TestRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** What a Messages client sent, with the unified request the ingress decoded from it. */
function messagesRequest(body: Record<string, unknown>, headers: Record<string, string> = {}, text?: string): ChatRequest {
  const unified: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: 'How do I cross the street?' }] };
  setRequestOrigin(unified, { format: ANTHROPIC_MESSAGES, body, headers, ...(text === undefined ? {} : { text }) });
  return unified;
}

const clientBody = {
  model: 'chat',
  max_tokens: 2048,
  system: [{ type: 'text', text: 'Be careful.', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'How do I cross the street?', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
  thinking: { type: 'enabled', budget_tokens: 1024 },
  top_k: 5,
  stream: true,
};

describe('a Messages request goes to Anthropic as the client wrote it', () => {
  it('sends the client body with the upstream model and the client version and betas; the answer keeps its wire body', async () => {
    rig = await anthropicRig([json(200, fixtureJson('anthropic-text.json'))]);
    const request = messagesRequest(clientBody, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14' });
    const answer = await rig.pipeline.chat(request);
    const received = rig.servers[0]!.requests[0]!;
    // Everything the unified shape does not model arrives untouched; `stream` follows the call.
    expect(JSON.parse(received.body)).toEqual({ ...clientBody, model: 'claude-a', stream: undefined });
    expect(received.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    expect(received.headers['anthropic-version']).toBe('2023-06-01');
    expect(received.headers['x-api-key']).toBe('sk-ant-test-key-a-0123456789abcdef');
    expect(JSON.parse(wireBodyOf(answer, ANTHROPIC_MESSAGES)!)).toEqual(fixtureJson('anthropic-text.json'));
  });

  it('a deployment\'s beta allow-list drops the other betas with the body fields they turn on, and the answer names them', async () => {
    rig = await anthropicRig([json(200, fixtureJson('anthropic-text.json'))], { options: { anthropicBetas: ['interleaved-thinking-2025-05-14'] } });
    const body = { ...clientBody, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } };
    const answer = await rig.pipeline.chat(messagesRequest(body, { 'anthropic-version': '2023-06-01', 'anthropic-beta': 'interleaved-thinking-2025-05-14,context-management-2025-06-27,claude-code-20250219' }));
    const received = rig.servers[0]!.requests[0]!;
    expect(received.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
    const sent = JSON.parse(received.body);
    expect(sent.context_management).toBeUndefined();
    expect(sent.thinking).toEqual(clientBody.thinking);
    expect(answer.switchyard?.dropped?.map((d) => d.feature)).toEqual(['anthropic-beta:context-management-2025-06-27', 'anthropic-beta:claude-code-20250219', 'context_management']);
  });

  it('by default, Claude Code\'s betas go; a beta that bills past the price table (1M context) or one nobody listed is dropped and named; ["*"] sends every one', async () => {
    const claudeCode = 'claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14,context-management-2025-06-27';
    const headers = { 'anthropic-version': '2023-06-01', 'anthropic-beta': `${claudeCode},context-1m-2025-08-07,priced-feature-2099-01-01` };
    const body = { ...clientBody, context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } };
    rig = await anthropicRig([json(200, fixtureJson('anthropic-text.json'))]);
    const answer = await rig.pipeline.chat(messagesRequest(body, headers));
    const received = rig.servers[0]!.requests[0]!;
    expect(received.headers['anthropic-beta']).toBe(claudeCode);
    // The fields of the betas it kept stay.
    expect(JSON.parse(received.body).context_management).toEqual(body.context_management);
    expect(answer.switchyard?.dropped?.map((d) => d.feature)).toEqual(['anthropic-beta:context-1m-2025-08-07', 'anthropic-beta:priced-feature-2099-01-01']);
    await rig.close();

    rig = await anthropicRig([json(200, fixtureJson('anthropic-text.json'))], { options: { anthropicBetas: ['*'] } });
    const everything = await rig.pipeline.chat(messagesRequest(body, headers));
    expect(rig.servers[0]!.requests[0]!.headers['anthropic-beta']).toBe(headers['anthropic-beta']);
    expect(everything.switchyard?.dropped).toBeUndefined();
  });

  it('a stream keeps every vendor event with its parts, signature_delta included', async () => {
    const [interaction] = cassette('pydantic-ai__test_anthropic_model_thinking_part_stream.yaml');
    rig = await anthropicRig([replay(interaction!)]);
    const parts: StreamPart[] = [];
    for await (const part of await rig.pipeline.stream(messagesRequest(clientBody))) parts.push(part);
    expect(JSON.parse(rig.servers[0]!.requests[0]!.body)).toMatchObject({ model: 'claude-a', stream: true, top_k: 5 });
    const forwarded = parts.map((p) => wireTextOf(p) ?? '').join('');
    // The vendor's bytes up to its closing message_stop (which the ingress writes itself).
    const raw = interaction!.response.body!.string;
    expect(forwarded).toBe(raw.slice(0, raw.indexOf('event: message_stop')));
    expect(forwarded).toContain('"type":"signature_delta"');
  });

  it('sends the client\'s own text with only the model replaced, when it already says what the call sends; else serializes as before', async () => {
    // As a client wrote it: its own key order and spacing, which JSON.stringify would not give back.
    const written = `{\n  "messages": ${JSON.stringify(clientBody.messages)},\n  "model" :  "chat",\n  "max_tokens": 2048, "top_k": 5,\n  "stream": true }`;
    const body = JSON.parse(written) as Record<string, unknown>;
    const stream = async (request: ChatRequest) => {
      for await (const _part of await rig!.pipeline.stream(request));
      return rig!.servers[0]!.requests.at(-1)!.body;
    };
    const [interaction] = cassette('pydantic-ai__test_anthropic_model_thinking_part_stream.yaml');
    rig = await anthropicRig([replay(interaction!), replay(interaction!), replay(interaction!), replay(interaction!), json(200, fixtureJson('anthropic-text.json'))], { options: { anthropicBetas: ['interleaved-thinking-2025-05-14'] } });
    expect(await stream(messagesRequest(body, {}, written))).toBe(written.replace('"model" :  "chat"', '"model":"claude-a"'));
    // A beta the deployment refuses takes fields out: serialized, without them.
    const refused = await stream(messagesRequest(body, { 'anthropic-beta': 'context-management-2025-06-27' }, written));
    expect(refused).toBe(JSON.stringify({ model: 'claude-a', messages: clientBody.messages, max_tokens: 2048, top_k: 5, stream: true }));
    // The same model named twice (here in metadata): which one is the request's is not certain, so serialized.
    const twice = written.replace('"top_k": 5', '"top_k": 5, "metadata": {"model": "chat"}');
    const twiceSent = await stream(messagesRequest(JSON.parse(twice) as Record<string, unknown>, {}, twice));
    expect(JSON.parse(twiceSent)).toMatchObject({ model: 'claude-a', metadata: { model: 'chat' } });
    expect(twiceSent).not.toContain('\n');
    // Two top-level "model" keys: routing and budgets went by the last (JSON.parse's); a vendor might read the first. Serialized: one model goes.
    const duplicated = `{"model":"claude-opus-4-1",${written.slice(1)}`;
    const duplicatedSent = await stream(messagesRequest(JSON.parse(duplicated) as Record<string, unknown>, {}, duplicated));
    expect(duplicatedSent.match(/"model"/g)).toHaveLength(1);
    expect(JSON.parse(duplicatedSent)).toMatchObject({ model: 'claude-a' });
    // A call that does not stream a body that says `"stream": true`: serialized, with no stream flag.
    await rig.pipeline.chat(messagesRequest(body, {}, written));
    expect(JSON.parse(rig.servers[0]!.requests.at(-1)!.body)).toEqual({ ...body, model: 'claude-a', stream: undefined });
  });

  it('a unified request (no origin) is encoded as before, and its events carry no wire text', async () => {
    const [interaction] = cassette('pydantic-ai__test_anthropic_model_thinking_part_stream.yaml');
    rig = await anthropicRig([replay(interaction!)]);
    const parts: StreamPart[] = [];
    for await (const part of await rig.pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })) parts.push(part);
    expect(parts.some((p) => wireTextOf(p) !== undefined)).toBe(false);
    expect(JSON.parse(rig.servers[0]!.requests[0]!.body)).toEqual({ model: 'claude-a', max_tokens: 4096, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: true });
  });

  it('counts tokens on /messages/count_tokens from the client body, or from the unified request with the counted fields only', async () => {
    rig = await anthropicRig([json(200, { input_tokens: 42 })]);
    const target = rig.pipeline.candidatesFor('chat')[0]!;
    const fromOrigin = anthropicProvider.buildCountTokensRequest!(messagesRequest({ model: 'chat', messages: clientBody.messages, system: 'x' }, { 'anthropic-beta': 'b1' }), target);
    expect(fromOrigin).toMatchObject({ method: 'POST', path: '/messages/count_tokens', headers: { 'anthropic-beta': 'b1', 'x-api-key': target.apiKey } });
    expect(JSON.parse(fromOrigin.body!)).toEqual({ model: 'claude-a', messages: clientBody.messages, system: 'x' });
    const fromUnified = anthropicProvider.buildCountTokensRequest!({ model: 'chat', messages: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }], max_tokens: 10, temperature: 0.5 }, target);
    expect(JSON.parse(fromUnified.body!)).toEqual({ model: 'claude-a', system: 's', messages: [{ role: 'user', content: [{ type: 'text', text: 'u' }] }] });
    expect(anthropicProvider.parseCountTokensResponse!({ status: 200, headers: {}, json: { input_tokens: 42 }, text: '' }, target)).toBe(42);
    expect(() => anthropicProvider.parseCountTokensResponse!({ status: 200, headers: {}, json: { tokens: 1 }, text: '' }, target)).toThrow(/input_tokens/);
  });

  it('speaks Messages, and judges only requests that did not come in it', () => {
    expect(anthropicProvider.speaks!(ANTHROPIC_MESSAGES, undefined as never)).toBe(true);
    expect(anthropicProvider.speaks!('openai.chat.completion', undefined as never)).toBe(false);
    const audio: ChatRequest = { model: 'chat', messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] }] };
    expect(anthropicProvider.unsupported!(audio, undefined as never)).toEqual({ path: 'messages[0].content[0]', reason: 'a "input_audio" part (anthropic has no such input)' });
    setRequestOrigin(audio, { format: ANTHROPIC_MESSAGES, body: {} });
    expect(anthropicProvider.unsupported!(audio, undefined as never)).toBeUndefined();
  });
});
