/** `${file:…}` secrets read again on reload, `serve --env-file`, and the example's .env.example. */
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { parseConfig } from '@switchyard/core/config';
import { completion, startLoopback, type Loopback } from '../../core/test/support/loopback.js';
import { parseEnvFile } from '../src/env-file.js';
import { startServer } from '../src/index.js';
import { capture, cleanUp, configFile, keepServer, keepVendors } from './support.js';

afterEach(cleanUp);

async function keyRecorder(): Promise<Loopback> {
  const v = await startLoopback((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion('ok')));
  });
  keepVendors(v);
  return v;
}

const ask = { model: 'chat', messages: [{ role: 'user' as const, content: 'hi' }] };
const lastKey = (v: Loopback) => v.requests.at(-1)?.headers.authorization;

async function serve(file: string, env: Record<string, string>, envFile?: string) {
  const out = capture(env);
  const signals = new EventEmitter();
  const server = await startServer({ file, envFile, io: out.io, overrides: { port: 0 }, watch: false, signals });
  keepServer(server);
  const client = new OpenAI({ baseURL: server.address.url, apiKey: 'unused', maxRetries: 0 });
  return { out, signals, server, ask: () => client.chat.completions.create(ask) };
}

describe('${file:…} secrets', () => {
  it('reads a key from a file and reads it again on reload, so a rotated key applies without a restart', async () => {
    const vendor = await keyRecorder();
    const file = await configFile(`endpoints: [{ name: up, provider: openai, baseUrl: "${vendor.url}", apiKey: "\${file:secrets/openai}" }]\nmodels: { chat: [{ endpoint: up, model: m }] }\n`);
    const secret = path.join(path.dirname(file), 'secrets', 'openai');
    await import('node:fs/promises').then((fs) => fs.mkdir(path.dirname(secret), { recursive: true }));
    await writeFile(secret, 'sk-from-file-one-0001\n');
    const { out, signals, ask: call } = await serve(file, {});
    await call();
    expect(lastKey(vendor)).toBe('Bearer sk-from-file-one-0001');
    await writeFile(secret, 'sk-from-file-two-0002\n');
    signals.emit('SIGHUP');
    await expect.poll(async () => (await call(), lastKey(vendor)), { timeout: 5_000, interval: 50 }).toBe('Bearer sk-from-file-two-0002');
    expect(out.err).not.toContain('sk-from-file');
  });

  it('a secret file that cannot be read is a config error naming the path and the file, never a value', () => {
    expect(() => parseConfig('endpoints: [{ name: a, provider: openai, apiKey: "${file:/run/secrets/nope-i13}" }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n')).toThrow(
      /endpoints\[0\]\.apiKey: cannot read secret file \/run\/secrets\/nope-i13 \(ENOENT\)/,
    );
    // A disabled endpoint may name a file that is not there.
    expect(() => parseConfig('endpoints: [{ name: a, provider: openai, enabled: false, apiKey: "${file:/run/secrets/nope-i13}" }, { name: b, provider: openai }]\nmodels: { chat: [{ endpoint: b, model: m }] }\n')).not.toThrow();
  });
});

describe('serve --env-file', () => {
  it('takes variables from the file (the environment wins) and reads it again on reload', async () => {
    const vendor = await keyRecorder();
    const file = await configFile(`endpoints: [{ name: up, provider: openai, baseUrl: "${vendor.url}", apiKey: "\${VENDOR_KEY}" }]\nmodels: { chat: [{ endpoint: up, model: m }] }\nserver: { apiKeys: ["\${GW_KEY:-}"] }\n`);
    const envFile = path.join(path.dirname(file), '.env');
    await writeFile(envFile, '# keys\nexport VENDOR_KEY="sk-env-file-0001"\nGW_KEY=set-in-file\n');
    const { signals, server } = await serve(file, { GW_KEY: 'gw-from-env' }, envFile);
    const client = new OpenAI({ baseURL: server.address.url, apiKey: 'gw-from-env', maxRetries: 0 });
    await client.chat.completions.create(ask);
    expect(lastKey(vendor)).toBe('Bearer sk-env-file-0001');
    await writeFile(envFile, 'VENDOR_KEY=sk-env-file-0002\n');
    signals.emit('SIGHUP');
    await expect.poll(async () => (await client.chat.completions.create(ask), lastKey(vendor)), { timeout: 5_000, interval: 50 }).toBe('Bearer sk-env-file-0002');
  });

  it('parses KEY=VALUE lines with export, quotes and comments, and names a bad line', () => {
    expect(parseEnvFile('# c\nA=1\nexport B="two words"\nC=\'x y\'\nD=plain # note\nE="line\\nbreak"\n\n')).toEqual({ A: '1', B: 'two words', C: 'x y', D: 'plain', E: 'line\nbreak' });
    expect(() => parseEnvFile('A=1\nnot a line\n', '.env')).toThrow('.env:2: expected KEY=VALUE');
  });
});

describe('examples/gateway/.env.example', () => {
  it('lists every variable the example config references', () => {
    const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../examples/gateway');
    const configText = readFileSync(path.join(dir, 'switchyard.yaml'), 'utf8').replace(/^\s*#.*$/gm, '');
    const referenced = new Set([...configText.matchAll(/\$\{([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]));
    const listed = new Set(Object.keys(parseEnvFile(readFileSync(path.join(dir, '.env.example'), 'utf8'))));
    expect([...referenced].filter((v) => !listed.has(v))).toEqual([]);
  });
});
