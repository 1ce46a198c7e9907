import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import type { Loopback } from '../../core/test/support/loopback.js';
import { closeVendors, configFile, removeTempDirs, vendorSaying } from './support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
const BIN = path.resolve(here, '../src/bin.ts');
const PACKAGE = JSON.parse(readFileSync(path.resolve(here, '../package.json'), 'utf8')) as { bin: { switchyard: string }; files: string[] };
/** What package managers link as `switchyard`: a committed file, there before any build. */
const SHIM = path.resolve(here, '..', PACKAGE.bin.switchyard);

afterEach(async () => {
  await closeVendors();
  await removeTempDirs();
});

const config = (v: Loopback) => `
server: { apiKeys: ["\${GW_KEY}"] }
endpoints: [{ name: up, provider: openai, baseUrl: "${v.url}" }]
models: { chat: [{ endpoint: up, model: m }] }
`;

describe('the switchyard process', () => {
  it('serves, reloads on a real SIGHUP and exits 0 on SIGTERM after draining', async () => {
    const a = await vendorSaying('from A');
    const b = await vendorSaying('from B');
    const file = await configFile(config(a));
    const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', 'tsx', BIN, 'serve', '--config', file, '--port', '0', '--no-watch'], {
      cwd: ROOT,
      env: { ...process.env, GW_KEY: 'gw-process-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      // stdout is JSON lines (not a terminal): the listening line carries the URL.
      await expect.poll(() => stdout, { timeout: 60_000, interval: 50 }).toMatch(/"event":"listening","url":"(http[^"]+)"/);
      const baseURL = /"event":"listening","url":"(http[^"]+)"/.exec(stdout)![1];
      const client = new OpenAI({ baseURL, apiKey: 'gw-process-test', maxRetries: 0 });
      const answer = async () => (await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content;
      expect(await answer()).toBe('from A');
      await writeFile(file, config(b));
      child.kill('SIGHUP');
      await expect.poll(answer, { timeout: 10_000, interval: 50 }).toBe('from B');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
      expect(stdout).toContain('"msg":"gateway closed"');
      expect(stderr).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);

  it('writes every access line through its buffered stdout: none is lost when SIGTERM stops it', async () => {
    const a = await vendorSaying('from A');
    const file = await configFile(config(a));
    const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', 'tsx', BIN, 'serve', '--config', file, '--port', '0', '--no-watch'], {
      cwd: ROOT,
      env: { ...process.env, GW_KEY: 'gw-process-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await expect.poll(() => stdout, { timeout: 60_000, interval: 50 }).toMatch(/"event":"listening","url":"(http[^"]+)"/);
      const baseURL = /"event":"listening","url":"(http[^"]+)"/.exec(stdout)![1];
      const client = new OpenAI({ baseURL, apiKey: 'gw-process-test', maxRetries: 0 });
      const requests = 200;
      for (let i = 0; i < requests; i += 20) {
        await Promise.all(Array.from({ length: 20 }, () => client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })));
      }
      // SIGTERM right after the last answer: the lines still in the buffer must reach stdout.
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const access = stdout.split('\n').filter((l) => l.includes('"event":"access"'));
      expect(access).toHaveLength(requests);
      for (const line of access) expect(JSON.parse(line)).toMatchObject({ status: 200, route: '/v1/chat/completions' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);

  it('the linked command is a committed, executable file that runs in the caller\'s folder and passes signals on', async () => {
    expect(PACKAGE.bin.switchyard).toBe('./bin/switchyard.js');
    expect(PACKAGE.files).toContain('bin');
    accessSync(SHIM, constants.X_OK);
    const a = await vendorSaying('from A');
    const file = await configFile(config(a));
    // A relative --config: it must be read from the caller's folder, not the package's.
    const child = spawn(SHIM, ['serve', '--config', path.basename(file), '--port', '0', '--no-watch'], {
      cwd: path.dirname(file),
      env: { ...process.env, GW_KEY: 'gw-process-test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await expect.poll(() => (child.exitCode === null ? stdout : `exited: ${stderr}`), { timeout: 60_000, interval: 100 }).toMatch(/"event":"listening","url":"(http[^"]+)"/);
      const baseURL = /"event":"listening","url":"(http[^"]+)"/.exec(stdout)![1];
      const client = new OpenAI({ baseURL, apiKey: 'gw-process-test', maxRetries: 0 });
      expect((await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).choices[0].message.content).toBe('from A');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(stdout).toContain('"msg":"gateway closed"');
      expect(stderr).toBe('');
    } finally {
      child.kill('SIGKILL');
    }
  }, 90_000);
});
