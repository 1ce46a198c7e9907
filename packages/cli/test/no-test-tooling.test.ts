/**
 * Test tooling stays out of production: `switchyard --help` and `switchyard serve` load no msw
 * module (and nothing of @switchyard/chaos), and the CLI's installed dependency closure has no
 * msw. Modules are recorded by a resolve hook registered with `--import` in the real process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Loopback } from '../../core/test/support/loopback.js';
import { closeVendors, configFile, removeTempDirs, vendorSaying } from './support.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
const BIN = path.resolve(here, '../src/bin.ts');
const RECORDER = path.resolve(here, 'fixtures/record-modules.mjs');

const dirs: string[] = [];
afterEach(async () => {
  await closeVendors();
  await removeTempDirs();
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Runs the CLI with the recorder; `until` decides when to stop it (default: let it exit). */
async function modulesLoadedBy(args: string[], until?: (stdout: string) => boolean): Promise<{ modules: string[]; stdout: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'switchyard-modules-'));
  dirs.push(dir);
  const log = path.join(dir, 'modules.log');
  const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', 'tsx', '--import', RECORDER, BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, SWITCHYARD_MODULE_LOG: log, GW_KEY: 'gw-modules-test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  try {
    if (until) {
      await expect.poll(() => until(stdout), { timeout: 60_000, interval: 50 }).toBe(true);
      child.kill('SIGTERM');
    }
    await exited;
  } finally {
    child.kill('SIGKILL');
  }
  const modules = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  return { modules, stdout };
}

const testTooling = (modules: string[]) => modules.filter((url) => /\/node_modules\/(\.pnpm\/)?(msw|@mswjs|graphql|@inquirer)[@/]|\/packages\/(chaos|testkit)\//.test(url));

describe('no test tooling at CLI start-up', () => {
  it('switchyard --help loads no msw module', async () => {
    const { modules, stdout } = await modulesLoadedBy(['--help']);
    expect(stdout).toContain('serve');
    // The recorder saw the CLI's own modules, so an empty answer below means something.
    expect(modules.some((url) => url.includes('/packages/cli/src/'))).toBe(true);
    expect(testTooling(modules)).toEqual([]);
  }, 90_000);

  it('switchyard serve loads no msw module and no plugin its config does not use', async () => {
    const v: Loopback = await vendorSaying('hi');
    const file = await configFile(`
server: { apiKeys: ["\${GW_KEY}"] }
endpoints: [{ name: up, provider: openai, baseUrl: "${v.url}" }]
models: { chat: [{ endpoint: up, model: m }] }
`);
    const { modules } = await modulesLoadedBy(['serve', '--config', file, '--port', '0', '--no-watch'], (out) => /"event":"listening","url":"http:/.test(out));
    expect(modules.some((url) => url.includes('/plugins/provider-openai/'))).toBe(true);
    expect(testTooling(modules)).toEqual([]);
    // Nor a policy plugin the config does not use (another command's import, loaded eagerly).
    expect([...new Set(modules.map((url) => /\/plugins\/([^/]+)\//.exec(url)?.[1]).filter(Boolean))].sort()).toEqual(['provider-anthropic', 'provider-gemini', 'provider-openai']);
    // The Messages and Gemini APIs are served by default (their dialects, `@switchyard/provider-*/dialect`); their provider codecs are not loaded for it.
    expect(modules.filter((url) => /\/plugins\/provider-(anthropic|gemini)\/src\/(provider|request|response|stream-decoder|index)\.ts/.test(url))).toEqual([]);
  }, 90_000);
});

describe('npm i @switchyard/cli', () => {
  /**
   * What npm would install: the CLI's `dependencies` (and theirs, and peer dependencies),
   * followed through the workspace packages as they would be published, down to the external
   * packages. Read from the packages' own package.json files, so a new dependency on chaos,
   * testkit or msw anywhere in the closure fails this.
   */
  function installClosure(): Set<string> {
    const seen = new Set<string>();
    const visit = (pkgJsonPath: string) => {
      const pkg = JSON.parse(readFileSync(pkgJsonPath, 'utf8')) as { dependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
      for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies })) {
        if (seen.has(name)) continue;
        seen.add(name);
        const next = findPackageJson(name, path.dirname(pkgJsonPath));
        if (next) visit(next);
      }
    };
    visit(path.resolve(here, '../package.json'));
    return seen;
  }

  /** Node's lookup (node_modules folders up from the real package folder), without exports-map limits. */
  function findPackageJson(name: string, from: string): string | undefined {
    for (let dir = realpathSync(from); ; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name, 'package.json');
      if (existsSync(candidate)) return realpathSync(candidate);
      if (path.dirname(dir) === dir) return undefined;
    }
  }

  it('installs no msw, chaos or testkit', () => {
    const closure = installClosure();
    expect(closure.has('@switchyard/simulate')).toBe(true);
    expect(closure.has('undici')).toBe(true);
    // Followed into external packages too (zod, yaml, …), not just the workspace.
    expect(closure.has('semver')).toBe(true);
    expect([...closure].filter((name) => /^(msw|@mswjs\/|graphql$|@inquirer\/|@switchyard\/(chaos|testkit)$)/.test(name))).toEqual([]);
  });
});
