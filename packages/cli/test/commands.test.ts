import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopback, type Loopback } from '../../core/test/support/loopback.js';
import { main, runDemoCommand } from '../src/index.js';
import { COMMANDS } from '../src/main.js';
import { capture, configFile, removeTempDirs } from './support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const EXAMPLE = path.resolve(here, '../../../examples/gateway/switchyard.yaml');
const servers: Loopback[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await removeTempDirs();
});

describe('command line', () => {
  it('prints the overview for --help and exits 0; with no command, exits 2', async () => {
    const help = capture();
    expect(await main(['--help'], help.io)).toBe(0);
    for (const name of ['serve', 'validate', 'check', 'demo', 'simulate', 'replay']) expect(help.out).toMatch(new RegExp(`^  ${name}\\s+\\S`, 'm'));
    const none = capture();
    expect(await main([], none.io)).toBe(2);
    expect(none.out).toContain('Usage: switchyard <command>');
  });

  it.each(['serve', 'validate', 'check', 'demo', 'simulate', 'replay'])('%s --help prints its usage and exits 0', async (name) => {
    const c = capture();
    expect(await main([name, '--help'], c.io)).toBe(0);
    expect(c.out).toContain(`Usage: switchyard ${name}`);
    const viaHelp = capture();
    expect(await main(['help', name], viaHelp.io)).toBe(0);
    expect(viaHelp.out).toBe(c.out);
  });

  it('an unknown command prints help and exits 2', async () => {
    const c = capture();
    expect(await main(['serv'], c.io)).toBe(2);
    expect(c.err).toContain('unknown command "serv"');
    expect(c.err).toContain('Commands:');
  });

  it('an unknown option prints the command help and exits 2', async () => {
    const c = capture();
    expect(await main(['validate', '--confg', 'x.yaml'], c.io)).toBe(2);
    expect(c.err).toContain("Unknown option '--confg'");
    expect(c.err).toContain('Usage: switchyard validate');
  });
});

describe('validate', () => {
  const exampleEnv = {
    OPENAI_API_KEY: 'sk-example-openai-0123456789',
    AZURE_OPENAI_API_KEY: 'azure-example-key-0123456789',
    ANTHROPIC_API_KEY: 'sk-ant-example-0123456789',
    GEMINI_API_KEY: 'AIzaExampleKey0123456789abcdefghij',
    DEEPSEEK_API_KEY: 'sk-deepseek-example-0123456789',
  };

  it('accepts the example config when its variables are set', async () => {
    const c = capture(exampleEnv);
    const code = await main(['validate', '--config', EXAMPLE], c.io);
    expect(c.err).toBe('');
    expect(code).toBe(0);
    expect(c.out).toMatch(/is valid: 6 endpoint\(s\) \(\+1 disabled\), 5 model\(s\) \[chat, reasoning, claude-sonnet-4-5, claude-haiku-4-5, embed\], 2 plugin\(s\)/);
    for (const secret of Object.values(exampleEnv)) expect(c.out).not.toContain(secret);
  });

  it('names the missing variable of the example config', async () => {
    const { GEMINI_API_KEY: _unset, ...env } = exampleEnv;
    const c = capture(env);
    expect(await main(['validate', '-c', EXAMPLE], c.io)).toBe(1);
    expect(c.err).toContain('endpoints[3].apiKey: environment variable GEMINI_API_KEY is not set');
    for (const secret of Object.values(env)) expect(c.err).not.toContain(secret);
  });

  it('accepts exactly what serve accepts: --env-file, --host and --port as serve applies them', async () => {
    expect(COMMANDS.find((c) => c.name === 'validate')!.options).toBe(COMMANDS.find((c) => c.name === 'serve')!.options);
    const file = await configFile(`
endpoints:
  - { name: vendor, provider: openai, baseUrl: "http://127.0.0.1:9/v1", apiKey: "\${VENDOR_KEY}" }
models:
  chat: [{ endpoint: vendor, model: gpt-x }]
server: { apiKeys: ["\${GATEWAY_KEY:-}"] }
`);
    const envFile = path.join(path.dirname(file), '.env');
    await writeFile(envFile, 'VENDOR_KEY="sk-from-env-file-0001"\n');
    const withFile = capture();
    expect(await main(['validate', '-c', file, '--env-file', envFile, '--no-watch'], withFile.io)).toBe(0);
    expect(withFile.out).toContain('is valid: 1 endpoint(s)');
    expect(withFile.out + withFile.err).not.toContain('sk-from-env-file-0001');
    const withoutFile = capture();
    expect(await main(['validate', '-c', file], withoutFile.io)).toBe(1);
    expect(withoutFile.err).toContain('environment variable VENDOR_KEY is not set');
    // serve refuses an open gateway beyond loopback: so does validate, with the same --host.
    const exposed = capture();
    expect(await main(['validate', '-c', file, '--env-file', envFile, '--host', '0.0.0.0', '--port', '0'], exposed.io)).toBe(1);
    expect(exposed.err).toContain('SWITCHYARD_ERR_CONFIG_UNSAFE_BIND');
    const keyed = capture({ GATEWAY_KEY: 'gw-key-0001' });
    expect(await main(['validate', '-c', file, '--env-file', envFile, '--host', '0.0.0.0'], keyed.io)).toBe(0);
    const badPort = capture();
    expect(await main(['validate', '-c', file, '--port', '70000'], badPort.io)).toBe(2);
    expect(badPort.err).toContain('--port must be a number from 0 to 65535');
    const missing = capture();
    expect(await main(['validate', '-c', file, '--env-file', path.join(path.dirname(file), 'nope.env')], missing.io)).toBe(1);
    expect(missing.err).toContain('SWITCHYARD_ERR_ENV_FILE');
  });

  it('reports a file that cannot be read', async () => {
    const c = capture();
    expect(await main(['validate', '--config', '/nonexistent/switchyard.yaml'], c.io)).toBe(1);
    expect(c.err).toContain('cannot read config file /nonexistent/switchyard.yaml: ENOENT');
  });
});

describe('check', () => {
  it('probes every endpoint and prints reachability, latency, auth and models', async () => {
    const healthy = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ id: 'gpt-a' }, { id: 'gpt-b' }] }));
    });
    const locked = await startLoopback((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'bad key', code: 'invalid_api_key' } }));
    });
    servers.push(healthy, locked);
    const gone = await startLoopback(() => undefined);
    const goneUrl = gone.url;
    await gone.close();
    const file = await configFile(`
endpoints:
  - { name: healthy, provider: openai, baseUrl: "${healthy.url}", apiKey: "\${HEALTHY_KEY}" }
  - { name: locked, provider: openai-compatible, baseUrl: "${locked.url}", apiKey: "\${LOCKED_KEY}" }
  - { name: gone, provider: openai, baseUrl: "${goneUrl}" }
  - { name: off, provider: openai, enabled: false }
models:
  chat:
    - { endpoint: healthy, model: gpt-a }
    - { endpoint: healthy, model: gpt-z }
    - { endpoint: locked, model: m }
    - { endpoint: gone, model: m }
`);
    const c = capture({ HEALTHY_KEY: 'sk-healthy-0123456789abcdef', LOCKED_KEY: 'sk-locked-0123456789abcdef' });
    const code = await main(['check', '--config', file, '--timeout', '2000'], c.io);
    expect(c.err).toBe('');
    expect(code).toBe(1);
    const rows = Object.fromEntries(c.out.split('\n').filter((l) => /^(healthy|locked|gone|off) /.test(l)).map((l) => [l.split(/\s+/)[0], l.split(/\s{2,}/)]));
    expect(rows.healthy.slice(0, 3)).toEqual(['healthy', 'openai', 'yes']);
    expect(rows.healthy[3]).toMatch(/^\d+ ms$/);
    expect(rows.healthy[4]).toBe('ok');
    expect(rows.healthy[5]).toBe('2 listed, 1/2 configured found (missing: gpt-z)');
    expect(rows.locked.slice(2, 3).concat(rows.locked.slice(4))).toEqual(['yes', 'failed', '-', 'HTTP 401']);
    expect(rows.gone.slice(2, 5)).toEqual(['no', '-', '-']);
    expect(rows.off).toEqual(['off', 'openai', '-', '-', '-', '-', 'disabled']);
    expect(c.out).toContain('2 endpoint(s) need attention: locked, gone');
    expect(healthy.requests[0]).toMatchObject({ path: '/v1/models' });
    expect(healthy.requests[0].headers.authorization).toBe('Bearer sk-healthy-0123456789abcdef');
    expect(c.out).not.toContain('sk-healthy');
  });

  /** A vendor whose model list answers 200 and whose chat route answers `chatStatus`. */
  const vendorWithChat = (chatStatus: number) =>
    startLoopback((req, res, body) => {
      res.writeHead(req.url?.endsWith('/models') ? 200 : chatStatus, { 'content-type': 'application/json' });
      if (req.url?.endsWith('/models')) res.end(JSON.stringify({ data: [{ id: 'm' }] }));
      else if (chatStatus !== 200) res.end(JSON.stringify({ error: { message: 'The engine is currently overloaded', type: 'server_error', code: null } }));
      else {
        expect(JSON.parse(body).max_tokens).toBe(1);
        res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'length' }] }));
      }
    });

  it('exits 0 when every endpoint is fine and every deployment completes one token', async () => {
    const ok = await vendorWithChat(200);
    servers.push(ok);
    const file = await configFile(`endpoints: [{ name: ok, provider: openai, baseUrl: "${ok.url}" }]\nmodels: { chat: [{ endpoint: ok, model: m }] }\n`);
    const c = capture();
    expect(await main(['check', '-c', file], c.io)).toBe(0);
    expect(c.out).toContain('1 listed, 1/1 configured found');
    expect(c.out).toMatch(/^ok\/m\s+ok\s+\d+ ms\s+-/m);
    expect(ok.requests.map((r) => r.path)).toEqual(['/v1/models', '/v1/chat/completions']);
  });

  it('reports a deployment whose chat route answers 503 as failing, with its error class, although /models answers', async () => {
    const busy = await vendorWithChat(503);
    servers.push(busy);
    const file = await configFile(`endpoints: [{ name: busy, provider: openai, baseUrl: "${busy.url}" }]\nmodels: { chat: [{ endpoint: busy, model: m }] }\n`);
    const c = capture();
    expect(await main(['check', '-c', file], c.io)).toBe(1);
    expect(c.out).toMatch(/^busy\s+openai\s+yes\s+\d+ ms\s+ok/m);
    expect(c.out).toMatch(/^busy\/m\s+failed\s+\d+ ms\s+overloaded \(endpoint-failure\)\s+HTTP 503/m);
    expect(c.out).toContain('1 deployment(s) failed a one-token completion: busy/m');
  });

  it('exits non-zero when every endpoint answers 500', async () => {
    const a = await startLoopback((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'boom', type: 'server_error', code: null } }));
    });
    const b = await startLoopback((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' });
      res.end('<html>Internal Server Error</html>');
    });
    servers.push(a, b);
    const file = await configFile(`endpoints:\n  - { name: a, provider: openai, baseUrl: "${a.url}" }\n  - { name: b, provider: openai-compatible, baseUrl: "${b.url}" }\nmodels: { chat: [{ endpoint: a, model: m }, { endpoint: b, model: n }] }\n`);
    const c = capture();
    expect(await main(['check', '-c', file], c.io)).toBe(1);
    expect(c.out).toMatch(/^a\/m\s+failed.*server \(endpoint-failure\)/m);
    expect(c.out).toMatch(/^b\/n\s+failed.*server \(endpoint-failure\)/m);
    expect(c.out).toContain('2 deployment(s) failed a one-token completion: a/m, b/n');
  });

  it('rejects a bad --max-tokens with exit 2', async () => {
    const c = capture();
    expect(await main(['check', '--max-tokens', '0'], c.io)).toBe(2);
    expect(c.err).toContain('--max-tokens must be a positive whole number');
  });

  it('rejects a bad --timeout with exit 2', async () => {
    const c = capture();
    expect(await main(['check', '--timeout', 'soon'], c.io)).toBe(2);
    expect(c.err).toContain('--timeout must be a positive number');
  });
});

describe('demo', () => {
  it('runs the demo module with the output stream', async () => {
    const c = capture();
    let given: unknown;
    const code = await runDemoCommand(c.io, async () => ({ runDemo: async ({ out }) => void (given = out) }));
    expect(code).toBe(0);
    expect(given).toBe(c.io.out);
  });

  it('explains a missing demo module instead of crashing', async () => {
    const c = capture();
    const missing = Object.assign(new Error("Cannot find module './demo/index.js'"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(await runDemoCommand(c.io, () => Promise.reject(missing))).toBe(1);
    expect(c.err).toContain('the demo is not part of this build');
    const empty = capture();
    expect(await runDemoCommand(empty.io, async () => ({}))).toBe(1);
    expect(empty.err).toContain('does not export runDemo()');
  });
});

