import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { capture, configFile, removeTempDirs } from './support.js';

afterEach(removeTempDirs);

const ENDPOINT = '{ name: a, provider: openai, baseUrl: "http://127.0.0.1:9/v1" }';
const MODELS = 'models: { chat: [{ endpoint: a, model: m }] }';
const SECRET = 'sk-never-print-me-0123456789';

interface Case {
  name: string;
  yaml: string;
  /** The one problem line, as printed. */
  message: string;
  env?: Record<string, string>;
}

const cases: Case[] = [
  { name: 'broken YAML', yaml: `endpoints: [${ENDPOINT}\n${MODELS}\n`, message: 'invalid YAML at line' },
  { name: 'unset variable', yaml: `endpoints:\n  - { name: a, provider: openai, apiKey: "\${OPENAI_KEY}" }\n${MODELS}\n`, message: 'endpoints[0].apiKey: environment variable OPENAI_KEY is not set' },
  { name: 'baseUrl that is not a URL', yaml: `endpoints: [{ name: a, provider: openai, baseUrl: "api.openai.com" }]\n${MODELS}\n`, message: 'endpoints[0].baseUrl:' },
  { name: 'misspelled field', yaml: `endpoints: [{ name: a, provider: openai, apikey: x }]\n${MODELS}\n`, message: 'endpoints[0]: unknown field(s) "apikey"' },
  { name: 'deployment on an unknown endpoint', yaml: `endpoints: [${ENDPOINT}]\nmodels: { chat: [{ endpoint: b, model: m }] }\n`, message: 'models.chat[0].endpoint: unknown endpoint "b" (known: a)' },
  { name: 'duplicate endpoint names', yaml: `endpoints: [${ENDPOINT}, ${ENDPOINT}]\n${MODELS}\n`, message: 'endpoints[1].name: duplicate endpoint name "a"' },
  { name: 'model without deployments', yaml: `endpoints: [${ENDPOINT}]\nmodels: { chat: [] }\n`, message: 'models.chat: a model needs at least one deployment' },
  { name: 'no endpoints', yaml: `endpoints: []\n${MODELS}\n`, message: 'endpoints: at least one endpoint is needed' },
  { name: 'negative weight', yaml: `endpoints: [${ENDPOINT}]\nmodels: { chat: [{ endpoint: a, model: m, weight: -1 }] }\n`, message: 'models.chat[0].weight:' },
  { name: 'port out of range', yaml: `server: { port: 70000 }\nendpoints: [${ENDPOINT}]\n${MODELS}\n`, message: 'server.port:' },
  { name: 'open gateway beyond loopback', yaml: `server: { host: 0.0.0.0, apiKeys: ["\${GW_KEY:-}"] }\nendpoints: [${ENDPOINT}]\n${MODELS}\n`, message: 'server.host: refusing to listen on 0.0.0.0 without a gateway key' },
  { name: 'plugin that is not installed', yaml: `endpoints: [${ENDPOINT}]\n${MODELS}\nplugins: ["@switchyard/plugin-nope"]\n`, message: 'plugins[0]: cannot import "@switchyard/plugin-nope" (is it installed?)' },
  { name: 'bad plugin option', yaml: `endpoints: [${ENDPOINT}]\n${MODELS}\nplugins: [{ use: "@switchyard/plugin-retry", options: { maxAttemptsPerCandidate: 0 } }]\n`, message: 'plugins[0].options.maxAttemptsPerCandidate:' },
  { name: 'provider package that is not installed', yaml: `endpoints: [{ name: a, provider: "\${PROVIDER}" }]\n${MODELS}\n`, env: { PROVIDER: SECRET }, message: 'endpoints[0].provider: cannot import "[redacted]"' },
  { name: 'unreadable CA file', yaml: `upstream: { ca: ./missing-ca.pem }\nendpoints: [${ENDPOINT}]\n${MODELS}\n`, message: 'upstream.ca: cannot read CA file' },
  { name: 'not a mapping', yaml: '- just\n- a list\n', message: 'expected a mapping with endpoints and models' },
];

describe('config errors: one precise message each', () => {
  it.each(cases)('$name', async (c) => {
    const file = await configFile(c.yaml);
    const out = capture({ ...c.env });
    expect(await main(['validate', '--config', file], out.io)).toBe(1);
    expect(out.out).toBe('');
    const lines = out.err.trimEnd().split('\n');
    // "error: <message>" then "(CODE)": exactly one problem reported.
    expect(lines, out.err).toHaveLength(2);
    expect(lines[0]).toContain(c.message);
    expect(lines[1]).toMatch(/^ {2}\(SWITCHYARD_ERR_[A-Z_]+\)$/);
    expect(out.err).not.toContain(SECRET);
  });
});
