/**
 * docs/tenants.md, run as written: its config is served (`switchyard serve` in process, against
 * a loopback vendor), each `switchyard …` line goes through the CLI, each `curl` line is sent
 * as it reads, the Python snippet is sent with the OpenAI SDK, and every output the page shows
 * must match what the command printed (ids, secrets, dates and amounts aside).
 *
 * The `switchyard keys` lines get the admin's environment, without the vendor's key and URL.
 * With SWITCHYARD_WALKTHROUGH_BIN set (scripts/fresh-clone-check.sh sets it to the `switchyard`
 * a fresh clone put on PATH), every `switchyard` line runs as that command in the config's
 * folder, `serve` included, instead of in this process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterEach, expect, it } from 'vitest';
import { main, startServer, type RunningServer } from '../src/index.js';
import { capture, cleanUp, configFile } from './support.js';
import { startLoopback, completion, type Loopback } from '../../core/test/support/loopback.js';

const DOC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/tenants.md');
const DOC_ORIGIN = 'http://127.0.0.1:8787';

const BIN = process.env.SWITCHYARD_WALKTHROUGH_BIN;

let server: RunningServer | undefined;
let served: ChildProcess | undefined;
let vendor: Loopback | undefined;
afterEach(async () => {
  await server?.stop();
  served?.kill('SIGKILL');
  await vendor?.close();
  server = served = vendor = undefined;
  await cleanUp();
});

/** `switchyard <args>` as its own process in `cwd`: exit code and output. */
function runBin(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN!, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

/** `switchyard serve …` as its own process; resolves once it listens. */
async function serveBin(args: string[], cwd: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(BIN!, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  await expect.poll(() => (child.exitCode !== null ? `exited: ${err}` : out), { timeout: 120_000, interval: 100 }).toMatch(/"event":"listening"/);
  return child;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Shell words: '…' literal, "…" and bare words with $VARS expanded. */
function words(line: string, vars: Record<string, string>): string[] {
  const out: string[] = [];
  let word = '';
  let started = false;
  const expand = (text: string) => text.replace(/\$([A-Z_][A-Z0-9_]*)/g, (_m, name: string) => vars[name] ?? '');
  for (let i = 0; i < line.length; ) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      word += c === "'" ? line.slice(i + 1, end) : expand(line.slice(i + 1, end));
      started = true;
      i = end + 1;
    } else if (c === ' ') {
      if (started) out.push(word);
      word = '';
      started = false;
      i++;
    } else {
      const next = line.slice(i).search(/['" ]/);
      const end = next < 0 ? line.length : i + next;
      word += expand(line.slice(i, end));
      started = true;
      i = end;
    }
  }
  if (started) out.push(word);
  return out;
}

/** What a sample output and a real one share: ids, secrets, dates, amounts and column widths aside. */
function shape(text: string): string {
  return text
    .replace(/sy-key_[0-9a-f]{16}\.[A-Za-z0-9_-]+/g, 'SECRET')
    .replace(/key_[0-9a-f]{16}/g, 'KEY')
    .replace(/\d{4}-\d{2}-\d{2}T[\d:.]+Z/g, 'TIME')
    .replace(/\d{4}-\d{2}(-\d{2})?/g, 'DATE')
    .replace(/\$?\d+(\.\d+)?/g, 'N')
    .replace(/-{2,}/g, '--')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

it('the virtual keys walkthrough works as written', { timeout: BIN ? 300_000 : 60_000 }, async () => {
  const doc = await readFile(DOC, 'utf8');
  const blocks = [...doc.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], text: m[2] }));
  const yaml = blocks.find((b) => b.lang === 'yaml')!.text;
  // The one change to the page's config: a free port instead of 8787 (the commands read it from there).
  const port = await freePort();
  expect(yaml).toContain('port: 8787\n');
  const file = await configFile(yaml.replace('port: 8787\n', `port: ${port}\n`));
  const dir = path.dirname(file);
  vendor = await startLoopback((_req, res, body) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(completion('hello from the vendor', JSON.parse(body).model)));
  });
  const origin = `http://127.0.0.1:${port}`;
  const vars: Record<string, string> = { OPENAI_API_KEY: 'sk-walkthrough-vendor-key', OPENAI_BASE_URL: vendor.url };
  let lastId = '';
  let lastSecret = '';
  let lastOutput: string | undefined;
  const ran: string[] = [];

  for (const block of blocks) {
    if (block.lang === 'text') {
      expect(lastOutput, `a sample output without a command before it:\n${block.text}`).toBeDefined();
      expect(shape(lastOutput!), `the output of "${ran.at(-1)}"`).toBe(shape(block.text));
      lastOutput = undefined;
      continue;
    }
    if (block.lang === 'python') {
      // The Python snippet, sent as it asks with the official Node SDK.
      const model = /model="([^"]+)"/.exec(block.text)![1];
      expect(block.text).toContain(`base_url="${DOC_ORIGIN}/v1"`);
      const client = new OpenAI({ baseURL: `${origin}/v1`, apiKey: vars[/os\.environ\["([A-Z_]+)"\]/.exec(block.text)![1]], maxRetries: 0 });
      expect((await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hello' }] })).choices[0].message.content).toBe('hello from the vendor');
      continue;
    }
    if (block.lang !== 'sh') continue;
    for (const line of block.text.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
      ran.push(line);
      const argv = words(line.replaceAll(DOC_ORIGIN, origin), vars);
      if (argv[0] === 'export') {
        const [name, value] = [argv[1].slice(0, argv[1].indexOf('=')), argv[1].slice(argv[1].indexOf('=') + 1)];
        // An id or a secret the page shows stands for the one the last command printed.
        vars[name] = /^key_[0-9a-f]{16}$/.test(value) ? lastId : /^sy-key_/.test(value) ? lastSecret : value;
        continue;
      }
      if (argv[0] === 'switchyard' && argv[1] === 'serve') {
        if (BIN) served = await serveBin(argv.slice(1), dir, vars);
        else server = await startServer({ file: path.resolve(dir, argv[argv.indexOf('--config') + 1]), io: capture({ ...vars }, dir).io, watch: false });
        if (server) expect(server.address.port).toBe(port);
        continue;
      }
      if (argv[0] === 'switchyard') {
        // The admin's shell: the gateway's address comes from the config, the vendor's secrets are not needed.
        const admin = Object.fromEntries(Object.entries(vars).filter(([name]) => !name.startsWith('OPENAI_')));
        let result: { code: number | null; out: string; err: string };
        if (BIN) result = await runBin(argv.slice(1), dir, admin);
        else {
          const cli = capture(admin, dir);
          result = { code: await main(argv.slice(1), cli.io), out: cli.out, err: cli.err };
        }
        expect(result.code, `${line}\n${result.err}`).toBe(0);
        lastOutput = result.out;
        lastId = /key_[0-9a-f]{16}/.exec(result.out)?.[0] ?? lastId;
        lastSecret = /sy-key_[0-9a-f]{16}\.[A-Za-z0-9_-]+/.exec(result.out)?.[0] ?? lastSecret;
        continue;
      }
      expect(argv[0], line).toBe('curl');
      const headers: Record<string, string> = {};
      let body: string | undefined;
      let url = '';
      for (let i = 1; i < argv.length; i++) {
        if (argv[i] === '-s') continue;
        if (argv[i] === '-H') {
          const header = argv[++i];
          headers[header.slice(0, header.indexOf(':')).trim()] = header.slice(header.indexOf(':') + 1).trim();
        } else if (argv[i] === '-d') body = argv[++i];
        else url = argv[i];
      }
      const res = await fetch(url, { method: body === undefined ? 'GET' : 'POST', headers, body });
      lastOutput = await res.text();
    }
  }

  // Every step ran, and the vendor saw what the page says it would.
  expect(ran.filter((l) => l.startsWith('switchyard keys')).map((l) => l.split(' ')[2])).toEqual(['create', 'usage', 'list', 'update', 'team', 'rotate', 'revoke']);
  expect(vendor.requests.map((r) => JSON.parse(r.body).model)).toEqual(['gpt-4o-mini', 'gpt-4o-mini', 'gpt-4o']);
  const shown = capture({ ...vars }, dir);
  expect(await main(['keys', 'show', vars.KEY_ID, '--json'], shown.io)).toBe(0);
  if (served) {
    // The served process drains and exits 0 on SIGTERM, as `switchyard serve` in a shell does on Ctrl-C.
    const exited = new Promise<number | null>((resolve) => served!.once('exit', (code) => resolve(code)));
    served.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
  expect(JSON.parse(shown.out)).toMatchObject({ id: vars.KEY_ID, name: 'team-a', team: 'a', status: 'revoked', models: ['gpt-4o*'], budget: { month: { limitUsd: 80 } } });
});
