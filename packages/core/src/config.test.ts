import { describe, expect, it } from 'vitest';
import { parseConfig, substituteVariables } from './config.js';

const base = (extra = '') => `
endpoints:
  - { name: openai, provider: openai, apiKey: "\${OPENAI_API_KEY}" }
  - { name: local, provider: openai-compatible, baseUrl: "http://127.0.0.1:11434/v1" }
models:
  chat:
    - { endpoint: openai, model: gpt-4o-mini, price: { input: 0.15, output: 0.6 } }
    - { endpoint: local, model: qwen2.5:7b, priority: 9 }
${extra}`;

const env = { OPENAI_API_KEY: 'sk-live-0123456789abcdef' };

function errorOf(text: string, e: Record<string, string | undefined> = env): { code: string; message: string; path?: string } {
  try {
    parseConfig(text, e, 'switchyard.yaml');
  } catch (error) {
    return error as never;
  }
  throw new Error('expected a config error');
}

describe('variable substitution', () => {
  it('substitutes ${VAR}, ${VAR:-default} and $$', () => {
    expect(substituteVariables('a${X}b${Y:-dflt}c$$d', { X: '1' }, 'p')).toBe('a1bdfltc$d');
    expect(substituteVariables('${EMPTY:-}', {}, 'p')).toBe('');
  });

  it('names the unset variable and where it is used, never a value', () => {
    const err = errorOf(base(), {});
    expect(err.code).toBe('SWITCHYARD_ERR_CONFIG_ENV');
    expect(err.message).toContain('OPENAI_API_KEY');
    expect(err.message).toContain('endpoints[0].apiKey');
  });

  it('a disabled endpoint may reference unset variables', () => {
    const text = base().replace('apiKey: "${OPENAI_API_KEY}" }', 'apiKey: "${OPENAI_API_KEY}", enabled: false }');
    expect(parseConfig(text, {}).endpoints[0].enabled).toBe(false);
  });
});

describe('config validation: one precise message per mistake', () => {
  it('accepts the reference config and drops empty keys', () => {
    const config = parseConfig(base('server: { apiKeys: ["${GW_KEY:-}", "gw-1"] }'), env);
    expect(config.server?.apiKeys).toEqual(['gw-1']);
    expect(config.server?.port).toBe(8787);
    expect(config.endpoints[0].apiKey).toBe(env.OPENAI_API_KEY);
  });

  it.each([
    ['a bad URL', base().replace('http://127.0.0.1:11434/v1', 'not a url'), 'endpoints[1].baseUrl: expected an http(s) URL'],
    ['a negative price', base().replace('input: 0.15', 'input: -1'), 'models.chat[0].price.input: prices cannot be negative'],
    ['a long-context tier without its threshold', base().replace('input: 0.15', 'input: 0.15, longContext: { input: 0.3, output: 1.2 }'), 'models.chat[0].price.longContext.aboveInputTokens'],
    ['an unknown endpoint in a model', base().replace('endpoint: local,', 'endpoint: lokal,'), 'models.chat[1].endpoint: unknown endpoint "lokal"'],
    ['a duplicate endpoint name', base().replace('name: local', 'name: openai'), 'endpoints[1].name: duplicate endpoint name "openai"'],
    ['an unknown field', base().replace('priority: 9', 'priorty: 9'), 'models.chat[1]: unknown field(s) "priorty"'],
    ['a port out of range', base('server: { port: 70000 }'), 'server.port'],
    ['no endpoints', 'endpoints: []\nmodels: {}\n', 'endpoints: at least one endpoint is needed'],
    ['a model with no deployment', base().replace(/models:[\s\S]*$/, 'models:\n  chat: []\n'), 'models.chat: a model needs at least one deployment'],
    ['a bad plugin entry', base('plugins: [ { use: "" } ]'), 'plugins[0]'],
  ])('%s', (_name, text, expected) => {
    const err = errorOf(text);
    expect(err.code).toBe('SWITCHYARD_ERR_CONFIG');
    expect(err.message).toContain(expected);
    expect(err.message).not.toContain(env.OPENAI_API_KEY);
  });

  it('idempotency.whenStoreUnavailable: refuse or local, anything else named by its path', () => {
    expect(parseConfig(base('idempotency: { whenStoreUnavailable: local }'), env).idempotency).toEqual({ whenStoreUnavailable: 'local' });
    expect(parseConfig(base(), env).idempotency).toBeUndefined();
    const error = errorOf(base('idempotency: { whenStoreUnavailable: sometimes }'));
    expect(error).toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path: 'idempotency.whenStoreUnavailable' });
  });

  it('reports YAML syntax errors with a line number', () => {
    const err = errorOf('endpoints: [\n  { name: a,\nmodels: {}');
    expect(err.code).toBe('SWITCHYARD_ERR_CONFIG_YAML');
    expect(err.message).toMatch(/line \d+/);
  });
});
