/** Issue 38: the masker keeps keys out of every line without blanking the gateway's own words. */
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback } from '../../core/test/support/loopback.js';
import { startServer } from '../src/index.js';
import { credentialFieldValues, credentialOf, looksRandom, referencedValues } from '../src/secrets.js';
import { capture, cleanUp, configFile, keepServer, keepVendors } from './support.js';

afterEach(cleanUp);

// The README's recipe: export SWITCHYARD_API_KEY=sk-switchyard-$(openssl rand -hex 16)
const GATEWAY_KEY = 'sk-switchyard-9be3c07a4d1f28e6a5c0b7d39e4f1a26';
const VENDOR_KEY = 'sk-switchyard-41d7e0c9a3b6f2851e0d4c7a9b3f6e20';
const TEST_KEY = 'sk-deepseek-test-key-0001';

const lines = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the masker with the README key recipe and ${VAR} URLs (issue 38)', () => {
  it("keeps error codes, package names, endpoint names and the listening URL readable, and still masks the keys and a vendor's echo", async () => {
    const vendor = await startLoopback((req, res) => {
      const key = String(req.headers.authorization ?? '').replace('Bearer ', '');
      res.writeHead(503, { 'content-type': 'application/json' });
      // A vendor echoing the key's prefix, as OpenAI's "Incorrect API key provided" does.
      res.end(JSON.stringify({ error: { message: `overloaded for key ${key.slice(0, 26)}…`, type: 'overloaded_error' } }));
    });
    keepVendors(vendor);
    const file = await configFile(
      [
        'endpoints:',
        '  - { name: deepseek, provider: openai, baseUrl: "${VENDOR_URL}", apiKey: "${DEEPSEEK_API_KEY}" }',
        '  - { name: primary, provider: openai, baseUrl: "${VENDOR_URL}", apiKey: "${OPENAI_API_KEY}" }',
        'models: { chat: [{ endpoint: primary, model: m }, { endpoint: deepseek, model: m }] }',
        'plugins: [{ use: "@switchyard/plugin-retry", options: { maxAttemptsPerCandidate: 1 } }]',
        'server: { apiKeys: ["${SWITCHYARD_API_KEY}"] }',
        '',
      ].join('\n'),
    );
    const out = capture({ VENDOR_URL: vendor.url, DEEPSEEK_API_KEY: TEST_KEY, OPENAI_API_KEY: VENDOR_KEY, SWITCHYARD_API_KEY: GATEWAY_KEY });
    const server = keepServer(await startServer({ file, io: out.io, overrides: { port: 0 }, watch: false, signals: new EventEmitter() }));
    const answer = await fetch(`${server.address.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${GATEWAY_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = await answer.text();
    await server.stop();
    const log = lines(out.out);
    expect(log).toContainEqual(expect.objectContaining({ event: 'listening', url: server.address.url }));
    expect(out.out).toContain('"endpoint":"deepseek"');
    expect(out.out).toMatch(/"errorCode":"SWITCHYARD_ERR_[A-Z_]+"/);
    expect(out.out).not.toMatch(/\[redacted\]_ERR|@\[redacted\]/);
    for (const key of [GATEWAY_KEY, VENDOR_KEY]) {
      const random = key.slice('sk-switchyard-'.length);
      for (const text of [out.out, out.err, body]) expect(text).not.toContain(random.slice(0, 8));
    }
    for (const text of [out.out, out.err, body]) expect(text).not.toContain(TEST_KEY);
    expect(out.out).toContain('for key sk-switchy[redacted]');
  });

  it('counts key variables, key-shaped values and URL passwords as credentials, never URLs, hosts, ports or names', () => {
    expect(credentialOf('OPENAI_API_KEY', 'sk-deepseek-test-key-0001')).toBe('sk-deepseek-test-key-0001');
    expect(credentialOf('VENDOR', GATEWAY_KEY)).toBe(GATEWAY_KEY);
    expect(credentialOf('REDIS_URL', 'redis://:s3cr3t-pw-77@127.0.0.1:6390/0')).toBe('s3cr3t-pw-77');
    for (const [name, value] of [['REDIS_URL', 'redis://127.0.0.1:6390'], ['OPENAI_BASE_URL', 'http://127.0.0.1:41085/v1'], ['HOST', 'api.deepseek.com'], ['SWITCHYARD_PORT', '8080'], ['MODEL', 'gpt-4o-mini-2024-07-18'], ['REGION', 'eu-west-1']]) {
      expect(credentialOf(name, value), name).toBeUndefined();
    }
    expect(looksRandom('3f9c2a7d51e04b8c96a1d0e7f2b45c83')).toBe(true);
    const config = 'endpoints: [{ name: a, provider: openai, baseUrl: "${BASE}", apiKey: "${K}" }]\nstore: { redis: "${REDIS_URL}" }\n';
    expect(referencedValues(config, { BASE: 'http://127.0.0.1:41085/v1', K: VENDOR_KEY, REDIS_URL: 'redis://127.0.0.1:6390' })).toEqual([VENDOR_KEY]);
  });

  it("counts a virtual key's secret as a credential, never its id, name or team (they were masked out of every log line)", () => {
    const config = {
      endpoints: [{ name: 'openai', apiKey: VENDOR_KEY, headers: { 'x-vendor-token': 'tok-4f2a9c', 'x-org': 'org-search' } }],
      server: { apiKeys: [GATEWAY_KEY], adminKeys: ['admin-0a1b2c3d'] },
      plugins: [{ use: '@switchyard/plugin-tenants', options: { teams: { search: {} }, keys: [{ id: 'search-bot', name: 'search', team: 'search', secret: 'sk-tenant-7e1d9b0c44f2a8e3', limits: { rpm: 100 } }, 'sk-listed-5c3e8a1f'] } }],
    };
    expect(credentialFieldValues(config).sort()).toEqual([VENDOR_KEY, GATEWAY_KEY, 'admin-0a1b2c3d', 'org-search', 'sk-listed-5c3e8a1f', 'sk-tenant-7e1d9b0c44f2a8e3', 'tok-4f2a9c'].sort());
  });
});
