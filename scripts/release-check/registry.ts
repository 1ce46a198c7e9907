/**
 * A throwaway local npm registry: verdaccio 6.8 (node-fetch pinned to 2.7.0, as verdaccio 6
 * needs on Node 20), loopback only, no uplinks, anyone may publish. Installed once into a
 * cache folder, started with its storage in the run's temp folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { log, run } from './log.js';

export const VERDACCIO_VERSION = '6.8.0';

export interface LocalRegistry {
  url: string;
  /** `//127.0.0.1:PORT/` as npmrc auth lines key it. */
  authKey: string;
  token: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

async function installVerdaccio(cacheDir: string): Promise<string> {
  const dir = path.join(cacheDir, `verdaccio-${VERDACCIO_VERSION}`);
  const bin = path.join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(bin)) {
    log(`verdaccio ${VERDACCIO_VERSION} already installed in ${dir}`);
    return bin;
  }
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ private: true, dependencies: { verdaccio: VERDACCIO_VERSION }, overrides: { 'node-fetch': '2.7.0' } }, null, 2));
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--registry=https://registry.npmjs.org/'], { cwd: dir });
  return bin;
}

export async function startRegistry(workDir: string, cacheDir: string): Promise<LocalRegistry> {
  const bin = await installVerdaccio(cacheDir);
  const port = Number(process.env.RELEASE_CHECK_REGISTRY_PORT) || (await freePort());
  const home = path.join(workDir, 'verdaccio');
  await mkdir(home, { recursive: true });
  const config = `storage: ${path.join(home, 'storage')}
auth:
  htpasswd:
    file: ${path.join(home, 'htpasswd')}
    max_users: 10
uplinks: {}
packages:
  '**':
    access: $all
    publish: $all
    unpublish: $all
server:
  keepAliveTimeout: 60
listen: 127.0.0.1:${port}
max_body_size: 200mb
log: { type: file, path: ${path.join(home, 'verdaccio.log')}, level: warn }
`;
  const configFile = path.join(home, 'config.yaml');
  await writeFile(configFile, config);
  const url = `http://127.0.0.1:${port}/`;
  log(`starting verdaccio ${VERDACCIO_VERSION} on ${url} (no uplinks, storage ${home})`);
  const child: ChildProcess = spawn(process.execPath, [bin, '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited at start:\n${output}`);
    try {
      const res = await fetch(`${url}-/ping`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer within 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  // npm and pnpm refuse to publish without a token; the registry's own user endpoint gives one.
  const res = await fetch(`${url}-/user/org.couchdb.user:release-check`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'release-check', password: 'release-check-password', type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const body = (await res.json()) as { token?: string };
  if (!res.ok || !body.token) throw new Error(`verdaccio gave no token: ${res.status} ${JSON.stringify(body)}`);
  log(`verdaccio is up; user "release-check" created`);
  return {
    url,
    authKey: `//127.0.0.1:${port}/`,
    token: body.token,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
