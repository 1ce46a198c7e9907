/** `switchyard keys`: its command line, checked before anything is sent, and what reaches the admin API. */
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/index.js';
import { capture, cleanUp, configFile } from './support.js';
import { startLoopback, type Loopback } from '../../core/test/support/loopback.js';

let api: Loopback | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
  await cleanUp();
});

/** An admin API that answers every call with `answer` and records what it got. */
async function adminApi(status = 200, answer: unknown = { keys: [] }): Promise<Loopback> {
  api = await startLoopback((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer));
  });
  return api;
}

const url = (l: Loopback) => l.url.replace(/\/v1$/, '');

describe('switchyard keys', () => {
  it('says what is wrong with the command line, with exit status 2 and nothing sent', async () => {
    const l = await adminApi();
    const cases: [string[], Record<string, string>, string][] = [
      [['keys'], { SWITCHYARD_ADMIN_KEY: 'k' }, 'a command is needed'],
      [['keys', 'destroy'], { SWITCHYARD_ADMIN_KEY: 'k' }, 'unknown command "destroy"'],
      [['keys', 'show'], { SWITCHYARD_ADMIN_KEY: 'k' }, '"keys show" needs a key id'],
      [['keys', 'list', '--url', url(l)], {}, 'an admin key is needed: --admin-key <key> or SWITCHYARD_ADMIN_KEY'],
      [['keys', 'create', '--url', url(l)], { SWITCHYARD_ADMIN_KEY: 'k' }, '"keys create" needs --name <name>'],
      [['keys', 'create', '--name', 'a', '--budget', '50/week', '--url', url(l)], { SWITCHYARD_ADMIN_KEY: 'k' }, '--budget takes <usd>/<day|month>, e.g. 50/month, got "50/week"'],
      [['keys', 'create', '--name', 'a', '--rpm', 'lots', '--url', url(l)], { SWITCHYARD_ADMIN_KEY: 'k' }, '--rpm takes a positive whole number, got "lots"'],
      [['keys', 'rotate', 'key_0123456789abcdef', '--grace', 'soon', '--url', url(l)], { SWITCHYARD_ADMIN_KEY: 'k' }, '--grace takes a duration such as 90s, 10m, 12h or 30d, got "soon"'],
      [['keys', 'update', 'key_0123456789abcdef', '--url', url(l)], { SWITCHYARD_ADMIN_KEY: 'k' }, '"keys update" needs a field to change'],
    ];
    for (const [argv, env, message] of cases) {
      const cli = capture(env);
      expect(await main(argv, cli.io), argv.join(' ')).toBe(2);
      expect(cli.err).toContain(message);
    }
    expect(l.requests).toHaveLength(0);
  });

  it('sends the options as the admin API takes them, with the admin key', async () => {
    const l = await adminApi(201, { key: { id: 'key_0123456789abcdef', name: 'team-a', team: 'a' }, secret: 'sy-key_0123456789abcdef.secret' });
    const cli = capture({ SWITCHYARD_ADMIN_KEY: 'the-admin-key' });
    const argv = ['keys', 'create', '--name', 'team-a', '--team', 'a', '--budget', '50/month', '--budget', '$2.5/day', '--soft', '0.9', '--models', 'gpt-4o*, chat', '--rpm', '60', '--concurrency', '4', '--tag', 'project=search', '--expires', '2030-01-01T00:00:00Z', '--url', `${l.url}`];
    expect(await main(argv, cli.io)).toBe(0);
    expect(cli.out).toBe('created key key_0123456789abcdef (team-a, team a)\nsecret (shown once; the gateway keeps only a hash): sy-key_0123456789abcdef.secret\n');
    const [sent] = l.requests;
    expect(sent.path).toBe('/switchyard/keys');
    expect(sent.headers.authorization).toBe('Bearer the-admin-key');
    expect(JSON.parse(sent.body)).toEqual({
      name: 'team-a',
      team: 'a',
      models: ['gpt-4o*', 'chat'],
      budget: { month: { limitUsd: 50, soft: 0.9 }, day: { limitUsd: 2.5, soft: 0.9 } },
      limits: { rpm: 60, concurrency: 4 },
      expiresAt: '2030-01-01T00:00:00Z',
      tags: { project: 'search' },
    });
  });

  it("finds the gateway in the config's server section, and prints the gateway's refusal with its code", async () => {
    const l = await adminApi(404, { error: { message: 'no key key_0123456789abcdef', code: 'key_not_found' } });
    const port = new URL(l.url).port;
    const file = await configFile(`server: { host: 0.0.0.0, port: ${port}, adminKeys: ["\${ADMIN}"] }\nendpoints: [{ name: a, provider: openai, apiKey: "\${OPENAI_API_KEY:-}" }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n`);
    const cli = capture({ SWITCHYARD_ADMIN_KEY: 'k', ADMIN: 'k' }, file.slice(0, file.lastIndexOf('/')));
    expect(await main(['keys', 'usage', 'key_0123456789abcdef', '--since', '2026-05-01'], cli.io)).toBe(1);
    expect(cli.err).toBe('error: no key key_0123456789abcdef (key_not_found)\n');
    expect(l.requests[0].path).toBe('/switchyard/keys/key_0123456789abcdef/usage?since=2026-05-01');
  });

  it("reads only the gateway's address from the config: the vendors' secrets need not be in the admin's shell", async () => {
    const l = await adminApi(200, { keys: [] });
    const port = new URL(l.url).port;
    const file = await configFile(`server: { host: "\${GW_HOST:-127.0.0.1}", port: "\${GW_PORT}", apiKeys: ["\${SWITCHYARD_API_KEY}"], adminKeys: ["\${ADMIN}"] }\nendpoints: [{ name: a, provider: openai, apiKey: "\${OPENAI_API_KEY}" }, { name: b, provider: anthropic, apiKey: "\${file:missing-secret}" }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n`);
    const cli = capture({ SWITCHYARD_ADMIN_KEY: 'k', GW_PORT: port }, file.slice(0, file.lastIndexOf('/')));
    expect(await main(['keys', 'list'], cli.io)).toBe(0);
    expect(l.requests[0].path).toBe('/switchyard/keys');
    // The address's own variables still have to be there, and the error says which.
    const unset = capture({ SWITCHYARD_ADMIN_KEY: 'k' }, file.slice(0, file.lastIndexOf('/')));
    expect(await main(['keys', 'list'], unset.io)).toBe(2);
    expect(unset.err).toContain('server.port: environment variable GW_PORT is not set');
    expect(l.requests).toHaveLength(1);
  });

  it('validate: admin keys need the tenants plugin', async () => {
    const base = 'endpoints: [{ name: a, provider: openai, apiKey: sk-x }]\nmodels: { chat: [{ endpoint: a, model: m }] }\n';
    const without = capture();
    expect(await main(['validate', '--config', await configFile(`server: { adminKeys: [admin-key-0123456789] }\n${base}`)], without.io)).toBe(1);
    expect(without.err).toContain('server.adminKeys: the admin API manages the virtual keys of @switchyard/plugin-tenants');
    const withPlugin = capture();
    expect(await main(['validate', '--config', await configFile(`server: { adminKeys: [admin-key-0123456789] }\n${base}plugins: ["@switchyard/plugin-tenants"]\n`)], withPlugin.io)).toBe(0);
    expect(withPlugin.err).toBe('');
  });

  it('says when the gateway cannot be reached', async () => {
    const gone = await startLoopback(() => undefined);
    await gone.close();
    const origin = gone.url.replace(/\/v1$/, '');
    const cli = capture({ SWITCHYARD_ADMIN_KEY: 'k' });
    expect(await main(['keys', 'list', '--url', origin], cli.io)).toBe(1);
    expect(cli.err).toBe(`error: cannot reach the gateway at ${origin}: ECONNREFUSED\n`);
  });
});
