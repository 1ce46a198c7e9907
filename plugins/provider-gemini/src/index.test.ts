import { describe, expect, it } from 'vitest';
import { isProvider } from '@switchyard/core/internal';
import { providersOf } from '@switchyard/core/internal';
import * as mod from './index.js';
import { geminiProvider } from './index.js';

const target = (apiKey?: string) => ({ apiKey, model: 'gemini-2.5-flash', endpoint: { name: 'g', provider: 'gemini' } }) as never;

describe('package surface', () => {
  it('exports the provider the way the config loader finds it', () => {
    expect(isProvider(geminiProvider)).toBe(true);
    expect(mod.default).toEqual([geminiProvider]);
    expect(providersOf(mod as unknown as Record<string, unknown>)).toEqual([geminiProvider]);
    expect(geminiProvider).toMatchObject({ id: 'gemini', specificationVersion: 'v1', defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta' });
    expect(geminiProvider.defaultCapabilities).toEqual(expect.arrayContaining(['tools', 'json', 'vision']));
  });

  it('probes with GET /models, the key in the header only', () => {
    expect(geminiProvider.probe?.(target('AIzaSyPROBE-key-000000000000000000'))).toEqual({ method: 'GET', path: '/models', headers: { 'x-goog-api-key': 'AIzaSyPROBE-key-000000000000000000' } });
    expect(geminiProvider.probe?.(target())).toEqual({ method: 'GET', path: '/models', headers: {} });
  });

  it('addresses tuned and fully named models by their resource path', () => {
    const build = (model: string) => geminiProvider.buildRequest({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }, { ...(target() as object), model } as never, { stream: false }).path;
    expect(build('gemini-2.5-flash')).toBe('/models/gemini-2.5-flash:generateContent');
    expect(build('models/gemini-2.5-flash')).toBe('/models/gemini-2.5-flash:generateContent');
    expect(build('tunedModels/my model')).toBe('/tunedModels/my%20model:generateContent');
    for (const model of ['models/../files', '..', 'tunedModels/x/y', 'models/', '%2E%2E', 'a/%2fb']) expect(() => build(model), model).toThrow(/is not a model name/);
  });
});
