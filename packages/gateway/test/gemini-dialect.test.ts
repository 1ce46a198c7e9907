/**
 * The Gemini API dialect through the official `@google/genai` SDK: generateContent, streaming
 * and a function-call round trip against a Gemini vendor (the client's body and the vendor's
 * answer pass through) and against Anthropic and OpenAI (translated); embedContent against
 * Gemini and OpenAI; countTokens from the vendor's endpoint where one exists, else the
 * estimator, saying which. Raw HTTP for what the SDK does not show: the key in `?key=`, the
 * default JSON array stream, Google's error shape, `GET /v1/models` in the caller's shape.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GoogleGenAI, FunctionCallingConfigMode, type Content } from '@google/genai';
import { geminiDialect } from '@switchyard/provider-gemini';
import { DEFAULT_DIALECTS, TOKEN_COUNT_HEADER } from '../src/index.js';
import { GATEWAY_KEY, stopAll, vendor } from './support/harness.js';
import { hasToolResult, MODEL, pipelineOf, scriptedVendor, startMessagesGateway, type VendorKind } from './support/messages.js';

afterEach(stopAll);

const dialects = [...DEFAULT_DIALECTS, geminiDialect];
const WEATHER = { name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const TOOL_CALL = { id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Oslo' } };
const weatherScript = (kind: VendorKind) => (body: unknown) => (hasToolResult(kind, body) ? { text: 'It is -3 °C in Oslo right now.' } : { tool: TOOL_CALL });

async function gatewayFor(kinds: VendorKind[], script: (kind: VendorKind) => (body: unknown) => object = () => () => ({ text: 'Hello from upstream.' }), handlers: Partial<Record<VendorKind, Parameters<typeof vendor>[0]>> = {}) {
  const upstreams = [];
  for (const kind of kinds) upstreams.push({ kind, server: handlers[kind] ? await vendor(handlers[kind]!) : await scriptedVendor(kind, script(kind) as never) });
  const h = await startMessagesGateway(pipelineOf(upstreams.map((u) => ({ name: u.kind, kind: u.kind, url: u.server.url }))), { dialects });
  const genai = new GoogleGenAI({ apiKey: GATEWAY_KEY, httpOptions: { baseUrl: h.origin } });
  return { ...h, genai, upstreams };
}

describe.each(['gemini', 'anthropic', 'openai'] as const)('@google/genai through the gateway to %s', (kind) => {
  it('generateContent: text, usage, and the request in the vendor’s own format', async () => {
    const { genai, upstreams } = await gatewayFor([kind]);
    const answer = await genai.models.generateContent({ model: MODEL, contents: 'Say hello.', config: { systemInstruction: 'Be brief.', temperature: 0.2, maxOutputTokens: 64 } });
    expect(answer.text).toBe('Hello from upstream.');
    expect(answer.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    const sent = upstreams[0]!.server.requests[0]!;
    if (kind === 'gemini') {
      // Pass-through: the client's body reached the vendor as it was sent.
      expect(JSON.parse(sent.body)).toMatchObject({ contents: [{ role: 'user', parts: [{ text: 'Say hello.' }] }], systemInstruction: { parts: [{ text: 'Be brief.' }] }, generationConfig: { temperature: 0.2, maxOutputTokens: 64 } });
      expect(sent.path).toMatch(/\/models\/gemini-2\.5-flash:generateContent$/);
    } else if (kind === 'anthropic') {
      expect(JSON.parse(sent.body)).toMatchObject({ system: 'Be brief.', max_tokens: 64, temperature: 0.2, messages: [{ role: 'user', content: [{ type: 'text', text: 'Say hello.' }] }] });
    } else {
      expect(JSON.parse(sent.body)).toMatchObject({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello.' }], temperature: 0.2 });
    }
  });

  it('generateContentStream: the text arrives in pieces and ends with a finish reason', async () => {
    const { genai } = await gatewayFor([kind]);
    const stream = await genai.models.generateContentStream({ model: MODEL, contents: 'Say hello.' });
    const texts: string[] = [];
    let finish: string | undefined;
    for await (const chunk of stream) {
      if (chunk.text) texts.push(chunk.text);
      finish = chunk.candidates?.[0]?.finishReason ?? finish;
    }
    expect(texts.join('')).toBe('Hello from upstream.');
    // The scripted Gemini vendor sends its text as one chunk; the others in pieces.
    if (kind !== 'gemini') expect(texts.length).toBeGreaterThan(1);
    expect(finish).toBe('STOP');
  });

  it('a function-call round trip: functionCall out, functionResponse back, the answer', async () => {
    const { genai, upstreams } = await gatewayFor([kind], weatherScript);
    const tools = [{ functionDeclarations: [WEATHER] }];
    const ask: Content = { role: 'user', parts: [{ text: 'What is the weather in Oslo?' }] };
    const first = await genai.models.generateContent({ model: MODEL, contents: [ask], config: { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } } } });
    const call = first.functionCalls?.[0];
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Oslo' } });
    const stream = await genai.models.generateContentStream({
      model: MODEL,
      contents: [ask, first.candidates![0]!.content!, { role: 'user', parts: [{ functionResponse: { id: call!.id, name: 'get_weather', response: { temp: -3 } } }] }],
      config: { tools },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('It is -3 °C in Oslo right now.');
    const second = JSON.parse(upstreams[0]!.server.requests[1]!.body);
    if (kind === 'gemini') expect(second.contents[2].parts[0]).toEqual({ functionResponse: { ...(call!.id ? { id: call!.id } : {}), name: 'get_weather', response: { temp: -3 } } });
    else if (kind === 'anthropic') expect(second.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: TOOL_CALL.id, content: '{"temp":-3}' });
    else expect(second.messages[2]).toEqual({ role: 'tool', tool_call_id: TOOL_CALL.id, content: '{"temp":-3}' });
  });
});

describe('countTokens', () => {
  it('asks the vendor where it counts (Gemini, Anthropic) and says so; estimates for OpenAI and says so', async () => {
    for (const [kind, exact] of [['gemini', true], ['anthropic', true], ['openai', false]] as const) {
      const counting = (_req: unknown, res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(kind === 'gemini' ? '{"totalTokens":31}' : '{"input_tokens":29}');
      };
      const { origin, genai } = await gatewayFor([kind], undefined, { [kind]: counting });
      const { totalTokens } = await genai.models.countTokens({ model: MODEL, contents: 'How many tokens is this?' });
      const raw = await fetch(`${origin}/v1beta/models/${MODEL}:countTokens`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'How many tokens is this?' }] }] }) });
      expect(raw.headers.get(TOKEN_COUNT_HEADER)).toBe(exact ? 'exact' : 'estimate');
      if (exact) expect(totalTokens).toBe(kind === 'gemini' ? 31 : 29);
      else expect(totalTokens).toBeGreaterThan(0);
      await stopAll();
    }
  });
});

describe('embedContent', () => {
  it.each(['gemini', 'openai'] as const)('embeds through %s (one content and a batch)', async (kind) => {
    const embedder = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: string) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (kind === 'gemini') res.end(JSON.stringify({ embeddings: JSON.parse(body).requests.map((_: unknown, i: number) => ({ values: [i, 0.5] })) }));
      else res.end(JSON.stringify({ object: 'list', data: [].concat(JSON.parse(body).input).map((_: unknown, i: number) => ({ object: 'embedding', index: i, embedding: [i, 0.5] })), model: 'e', usage: { prompt_tokens: 2, total_tokens: 2 } }));
    };
    const { genai, upstreams } = await gatewayFor([kind], undefined, { [kind]: embedder });
    const one = await genai.models.embedContent({ model: MODEL, contents: 'hello' });
    expect(one.embeddings?.map((e) => e.values)).toEqual([[0, 0.5]]);
    const many = await genai.models.embedContent({ model: MODEL, contents: ['a', 'b'] });
    expect(many.embeddings?.map((e) => e.values)).toEqual([[0, 0.5], [1, 0.5]]);
    expect(upstreams[0]!.server.requests[0]!.path).toMatch(kind === 'gemini' ? /:batchEmbedContents$/ : /\/embeddings$/);
  });
});

describe('the Gemini wire', () => {
  it('takes the key from ?key=, streams the default JSON array, and passes Gemini chunks through byte for byte', async () => {
    const { origin, upstreams } = await gatewayFor(['gemini']);
    const res = await fetch(`${origin}/v1beta/models/${MODEL}:streamGenerateContent?key=${GATEWAY_KEY}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const array = JSON.parse(await res.text()) as { candidates: { content: { parts: { text: string }[] } }[]; responseId: string }[];
    expect(array.map((c) => c.candidates[0]!.content.parts[0]!.text).join('')).toBe('Hello from upstream.');
    expect(array[0]!.responseId).toBe('gemresp1');
    expect(upstreams[0]!.server.requests[0]!.path).toContain(':streamGenerateContent?alt=sse');
    const sse = await fetch(`${origin}/v1beta/models/${MODEL}:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
    const vendorChunks = (await fetch(upstreams[0]!.server.url.replace(/\/v1$/, '') + '/x:streamGenerateContent', { method: 'POST', body: '{"contents":[]}' }).then((r) => r.text())).split('\r\n\r\n').filter(Boolean);
    expect(await sse.text()).toBe(vendorChunks.map((c) => `${c}\n\n`).join(''));
  });

  it('carries thought signatures to a Gemini vendor as the client sent them', async () => {
    const { origin, upstreams } = await gatewayFor(['gemini']);
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }, { role: 'model', parts: [{ text: 'thinking', thought: true }, { functionCall: { name: 'f', args: {} }, thoughtSignature: 'c2lnbmVk' }] }, { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] }], tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT', properties: {} } }] }, { googleSearch: {} }] };
    const res = await fetch(`${origin}/v1beta/models/${MODEL}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(upstreams[0]!.server.requests[0]!.body).toBe(JSON.stringify(body));
  });

  it('skips vendors that cannot run a Google-only tool, and answers in Google’s error shape when none is left', async () => {
    const { origin } = await gatewayFor(['openai']);
    const res = await fetch(`${origin}/v1beta/models/${MODEL}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'news?' }] }], tools: [{ googleSearch: {} }] }) });
    expect(res.status).toBe(400);
    const error = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(error.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(error.error.message).toContain('Google Search');
  });

  it.each([
    [429, 'RESOURCE_EXHAUSTED'],
    [500, 'UNAVAILABLE'],
  ])('a vendor %i reaches the client as Google would say it (%s)', async (status, name) => {
    const failing = (_req: unknown, res: import('node:http').ServerResponse) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'nope', type: 'server_error' } }));
    };
    const { origin } = await gatewayFor(['openai'], undefined, { openai: failing });
    const res = await fetch(`${origin}/v1beta/models/${MODEL}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) });
    const error = (await res.json()) as { error: { status: string; code: number } };
    expect(error.error.status).toBe(name);
    expect(res.status).toBe(error.error.code);
  });

  it('an error before the first chunk of the JSON array stream is Google’s error: a status before any byte, an array holding it after heartbeats', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const unavailable = async (_req: unknown, res: import('node:http').ServerResponse) => {
      await released;
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } }));
    };
    const ask = { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }) };
    type GoogleError = { error: { code: number; status: string; message: string } };

    // Heartbeats went out (a 200 and whitespace), then every vendor failed: the array holds the error.
    const slow = await vendor(unavailable);
    const late = await startMessagesGateway(pipelineOf([{ name: 'gemini', kind: 'gemini', url: slow.url }]), { dialects, server: { heartbeatMs: 20 } });
    const res = await fetch(`${late.origin}/v1beta/models/${MODEL}:streamGenerateContent`, ask);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    expect(text.trim()).toBe('');
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    const array = JSON.parse(text) as GoogleError[];
    expect(array).toHaveLength(1);
    expect(array[0]!.error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
    expect(array[0]!.error.message).toContain('attempt');

    // Nothing went out yet: an ordinary error status in Google's shape.
    const early = await startMessagesGateway(pipelineOf([{ name: 'gemini', kind: 'gemini', url: slow.url }]), { dialects });
    const refused = await fetch(`${early.origin}/v1beta/models/${MODEL}:streamGenerateContent`, ask);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as GoogleError).error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });
  });

  it('refuses a wrong key in Google’s shape, and a malformed body naming the field', async () => {
    const { origin } = await gatewayFor(['gemini']);
    const denied = await fetch(`${origin}/v1beta/models/${MODEL}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'wrong', 'content-type': 'application/json' }, body: '{}' });
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: { status: string } }).error.status).toBe('UNAUTHENTICATED');
    const bad = await fetch(`${origin}/v1beta/models/${MODEL}:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': GATEWAY_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'robot', parts: [] }] }) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain('contents[0].role');
  });

  it('GET /v1/models answers in the caller’s shape: Gemini for x-goog-api-key, OpenAI for a bearer', async () => {
    const { origin, genai } = await gatewayFor(['gemini']);
    const gemini = (await fetch(`${origin}/v1/models`, { headers: { 'x-goog-api-key': GATEWAY_KEY } }).then((r) => r.json())) as { models: { name: string }[] };
    expect(gemini.models.map((m) => m.name)).toEqual([`models/${MODEL}`]);
    const openai = (await fetch(`${origin}/v1/models`, { headers: { authorization: `Bearer ${GATEWAY_KEY}` } }).then((r) => r.json())) as { object: string; data: { id: string }[] };
    expect(openai).toMatchObject({ object: 'list', data: [{ id: MODEL }] });
    const listed: string[] = [];
    for await (const model of await genai.models.list()) listed.push(model.name!);
    expect(listed).toEqual([`models/${MODEL}`]);
    expect((await genai.models.get({ model: MODEL })).name).toBe(`models/${MODEL}`);
  });
});
