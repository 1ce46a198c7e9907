/** Request translation, checked on what actually reaches a loopback server through undici. */
import { afterEach, describe, expect, it } from 'vitest';
import { isSwitchyardError, type ChatRequest } from '@switchyard/core';
import { API_KEY, fixture, geminiRig, json, MODEL, type GeminiRig } from '../test/harness.js';
import { geminiProvider } from './index.js';
import { SKIP_SIGNATURE_VALIDATION } from './thought-signatures.js';

const rigs: GeminiRig[] = [];
afterEach(async () => {
  await Promise.all(rigs.splice(0).map((r) => r.close()));
});
async function rig(options?: Record<string, unknown>) {
  const r = await geminiRig(json(200, fixture('google-text.json')), options);
  rigs.push(r);
  return r;
}

async function sentBody(request: ChatRequest, options?: Record<string, unknown>) {
  const r = await rig(options);
  await r.pipeline.chat(request);
  return JSON.parse(r.server.requests[0].body);
}

async function rejection(request: ChatRequest) {
  const r = await rig();
  const error = await r.pipeline.chat(request).then(() => undefined, (e: unknown) => e);
  return { error, sent: r.server.requests.length };
}

const PNG = 'iVBORw0KGgoAAAANSUhEUg==';

describe('buildRequest', () => {
  it('translates a full conversation: URL, key header, system, media, tool round trip, tools, generation config', async () => {
    const r = await rig();
    await r.pipeline.chat({
      model: 'chat',
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 256,
      stop: 'END',
      seed: 7,
      tool_choice: { type: 'function', function: { name: 'weather' } },
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false, properties: { city: { type: 'string' } }, required: ['city'] } } },
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'Current weather',
            parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', additionalProperties: false, properties: { location: { type: 'string', format: 'city-name' }, unit: { type: ['string', 'null'], enum: ['c', 'f'] } }, required: ['location', 'missing'] },
          },
        },
      ],
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use metric.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather here?' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'image_url', image_url: { url: 'https://example.com/a/photo.JPG?x=1' } }] },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"location":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '' } },
          ],
          providerMetadata: { gemini: { thoughtSignature: 'SIG1', toolCallSignatures: { call_1: 'SIG1' } } },
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
        { role: 'tool', tool_call_id: 'call_2', content: 'sunny' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    const sent = r.server.requests[0];
    expect(sent.path).toBe(`/v1/models/${MODEL}:generateContent`);
    expect(sent.path).not.toMatch(/key=/);
    expect(sent.headers['x-goog-api-key']).toBe(API_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['content-type']).toBe('application/json');
    expect(JSON.parse(sent.body)).toEqual({
      systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use metric.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather here?' }, { inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/a/photo.JPG?x=1' } }] },
        { role: 'model', parts: [{ text: 'Checking.' }, { functionCall: { name: 'weather', args: { location: 'Paris' } }, thoughtSignature: 'SIG1' }, { functionCall: { name: 'weather', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', response: { temp: 21 } } }, { functionResponse: { name: 'weather', response: { result: 'sunny' } } }] },
        { role: 'user', parts: [{ text: 'Thanks' }] },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'weather', description: 'Current weather', parameters: { type: 'object', properties: { location: { type: 'string' }, unit: { type: 'string', nullable: true, enum: ['c', 'f'] } }, required: ['location'] } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['weather'] } },
      generationConfig: {
        temperature: 0.2,
        topP: 0.9,
        maxOutputTokens: 256,
        stopSequences: ['END'],
        seed: 7,
        responseMimeType: 'application/json',
        responseSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    });
  });

  it('streams to :streamGenerateContent?alt=sse and never puts the key in the URL', async () => {
    const built = geminiProvider.buildRequest({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, { model: 'models/gemini-2.5-flash', apiKey: API_KEY, endpoint: { name: 'g', provider: 'gemini' } } as never, { stream: true });
    expect(built).toMatchObject({ method: 'POST', path: '/models/gemini-2.5-flash:streamGenerateContent?alt=sse', headers: { 'x-goog-api-key': API_KEY } });
    expect(built.path).not.toContain(API_KEY);
    expect(built.body).not.toContain(API_KEY);
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
  ] as const)('tool_choice %s → functionCallingConfig %j', async (choice, expected) => {
    const body = await sentBody({ model: 'chat', tool_choice: choice, tools: [{ type: 'function', function: { name: 'f' } }], messages: [{ role: 'user', content: 'hi' }] });
    expect(body.toolConfig).toEqual({ functionCallingConfig: expected });
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'f' }] }]);
  });

  it('json_object sets only the MIME type; max_completion_tokens wins over max_tokens; endpoint options merge in', async () => {
    const body = await sentBody(
      { model: 'chat', response_format: { type: 'json_object' }, max_tokens: 10, max_completion_tokens: 20, messages: [{ role: 'user', content: 'hi' }] },
      { generationConfig: { thinkingConfig: { includeThoughts: true }, maxOutputTokens: 5 }, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] },
    );
    expect(body.generationConfig).toEqual({ thinkingConfig: { includeThoughts: true }, maxOutputTokens: 20, responseMimeType: 'application/json' });
    expect(body.safetySettings).toEqual([{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }]);
  });

  it('a plain request sends no empty sections', async () => {
    const body = await sentBody({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });
  });

  it('function calls from another vendor get Google\'s placeholder signature, unless the endpoint turns it off', async () => {
    const history: ChatRequest = {
      model: 'chat',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_openai', type: 'function', function: { name: 'f', arguments: '{}' } }, { id: 'call_openai_2', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_openai', content: 'ok' },
        { role: 'tool', tool_call_id: 'call_openai_2', content: 'ok' },
      ],
    };
    const filled = await sentBody(history);
    expect(filled.contents[1].parts.map((p: { thoughtSignature?: string }) => p.thoughtSignature)).toEqual([SKIP_SIGNATURE_VALIDATION, undefined]);
    const bare = await sentBody(history, { fillMissingThoughtSignatures: false });
    expect(bare.contents[1].parts.every((p: { thoughtSignature?: string }) => p.thoughtSignature === undefined)).toBe(true);
  });

  it('sends a text answer\'s signature back on its last text part', async () => {
    const body = await sentBody({ model: 'chat', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello', providerMetadata: { gemini: { thoughtSignature: 'TXT' } } }, { role: 'user', content: 'again' }] });
    expect(body.contents[1]).toEqual({ role: 'model', parts: [{ text: 'hello', thoughtSignature: 'TXT' }] });
  });

  it.each([
    ['an http image URL whose type cannot be guessed', { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/render?id=3' } }] }, 'messages[0].content[0].image_url.url', /data: URL/],
    ['a non-http image URL', { role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }] }, 'messages[0].content[0].image_url.url', /data: URL or an http/],
    ['a tool result without a matching call', { role: 'tool', tool_call_id: 'nope', content: 'x' }, 'messages[0].tool_call_id', /no earlier assistant tool call has id "nope"/],
    ['tool call arguments that are not JSON', { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] }, 'messages[0].tool_calls[0].function.arguments', /not valid JSON/],
  ])('rejects %s with a coded bad-request naming the field, before any upstream call', async (_name, message, path, text) => {
    const { error, sent } = await rejection({ model: 'chat', messages: [message as never] });
    expect(sent).toBe(0);
    expect(isSwitchyardError(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'bad-request', code: 'SWITCHYARD_ERR_BAD_REQUEST', path, retryable: false });
    expect((error as Error).message).toMatch(text);
    expect((error as Error).message).toContain(path);
  });

  it.each([
    ['an unknown content part', { role: 'user', content: [{ type: 'video', video: {} }] }, 'messages[0].content[0]', /"video" part \(gemini has no such input\)/],
    ['a document Gemini does not read', { role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/vnd.ms-excel;base64,AAAA' } }] }, 'messages[0].content[0].file', /application\/vnd.ms-excel document/],
    ['an uploaded file id', { role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }, 'messages[0].content[0].file', /without inline data/],
    ['an image in a tool result', { role: 'tool', tool_call_id: 'c', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }, 'messages[0].content[0]', /in a tool result/],
  ])('refuses %s before routing: the target is skipped, and alone it is a 400 naming the field', async (_name, message, path, text) => {
    const { error, sent } = await rejection({ model: 'chat', messages: [message as never] });
    expect(sent).toBe(0);
    expect(error).toMatchObject({ kind: 'invalid-request', code: 'SWITCHYARD_ERR_UNEXPRESSIBLE', status: 400, path });
    expect((error as Error).message).toMatch(text);
  });
});
