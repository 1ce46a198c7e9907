import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, geminiRig, json, MODEL, type GeminiRig } from '../test/harness.js';
import { geminiProvider } from './index.js';

let rig: GeminiRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('countTokens', () => {
  it('counts the whole request (system instruction and tools included) as a generateContentRequest', async () => {
    rig = await geminiRig(json(200, { totalTokens: 31, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 31 }] }));
    const target = rig.pipeline.candidatesFor('chat')[0]!;
    const built = geminiProvider.buildCountTokensRequest!(
      { model: 'chat', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }], max_tokens: 5 },
      target,
    );
    expect(built).toMatchObject({ method: 'POST', path: `/models/${MODEL}:countTokens`, headers: { 'x-goog-api-key': API_KEY } });
    expect(JSON.parse(built.body!)).toEqual({
      generateContentRequest: {
        model: `models/${MODEL}`,
        contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
        systemInstruction: { parts: [{ text: 'Be brief.' }] },
        tools: [{ functionDeclarations: [{ name: 'f' }] }],
        generationConfig: { maxOutputTokens: 5 },
      },
    });
    expect(geminiProvider.parseCountTokensResponse!({ status: 200, headers: {}, json: { totalTokens: 31 }, text: '' }, target)).toBe(31);
    expect(() => geminiProvider.parseCountTokensResponse!({ status: 200, headers: {}, json: {}, text: '{}' }, target)).toThrow(/totalTokens/);
  });
});
