/**
 * The real `switchyard serve` as a bench contender: the production bundle (deploy/bundle.sh,
 * what the image and the systemd unit run) serving a config with the four policy plugins, its
 * access log on stdout redirected to a file (what a container log driver or journald reads).
 * Nothing is set up in process: the numbers are what an operator's process does.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The production bundle of a checkout, built by its own deploy/bundle.sh into bench/.build/<name>
 * (BENCH_BUNDLE: a bundle folder to use as it is, for this checkout's contender).
 */
export function servedBundle(checkout = ROOT, name = 'bundle'): string {
  const given = process.env.BENCH_BUNDLE;
  if (given && checkout === ROOT) return path.resolve(given);
  const out = path.join(ROOT, 'bench/.build', name);
  const built = spawnSync('bash', [path.join(checkout, 'deploy/bundle.sh'), out], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (built.status !== 0 || !existsSync(path.join(out, 'bin.js'))) throw new Error(`${checkout}/deploy/bundle.sh failed: the served contender needs the production bundle`);
  return out;
}

/** The gateway key the tenants variant declares (the load generator sends it as a bearer token). */
export const BENCH_TENANT_KEY = 'sk-bench-tenant-0123456789abcdef';

/**
 * The config `switchyard serve` runs in the bench: the four policy plugins, the access log on;
 * `tenants`: plus the ledger (@switchyard/plugin-quota, every deployment priced) and virtual keys
 * (@switchyard/plugin-tenants: one declared key of a team with a month budget and an rpm limit
 * neither run reaches), so each request is authenticated, reserved and settled.
 */
export function servedConfig(primary: string, secondary: string, tenants = false): string {
  const price = tenants ? ', price: { input: 0.15, output: 0.6 }' : '';
  const deployments = (endpoint: string) => `    - { endpoint: ${endpoint}-primary, model: bench-model${price} }\n    - { endpoint: ${endpoint}-secondary, model: bench-model${price} }\n`;
  const tenantPlugins = tenants
    ? `  - use: "@switchyard/plugin-quota"
    options: { ledger: {} }
  - use: "@switchyard/plugin-tenants"
    options:
      teams: { bench: { budget: { month: { limitUsd: 1000000 } } } }
      keys:
        - { id: bench, name: bench, team: bench, secret: "${BENCH_TENANT_KEY}", limits: { rpm: 100000000 } }
`
    : '';
  return `# bench: switchyard serve with the four policy plugins, access log on (the defaults)${tenants ? ', ledger and virtual keys' : ''}
server: { host: 127.0.0.1, port: 0, maxInFlight: 100000 }
endpoints:
  - { name: chat-primary, provider: openai-compatible, baseUrl: "${primary}" }
  - { name: chat-secondary, provider: openai-compatible, baseUrl: "${secondary}" }
  - { name: claude-primary, provider: anthropic, baseUrl: "${primary}" }
  - { name: claude-secondary, provider: anthropic, baseUrl: "${secondary}" }
  - { name: gpt-primary, provider: openai, baseUrl: "${primary}" }
  - { name: gpt-secondary, provider: openai, baseUrl: "${secondary}" }
  - { name: gemini-primary, provider: gemini, baseUrl: "${primary}" }
  - { name: gemini-secondary, provider: gemini, baseUrl: "${secondary}" }
models:
  chat:
${deployments('chat')}  claude:
${deployments('claude')}  gpt:
${deployments('gpt')}  gemini:
${deployments('gemini')}plugins:
  - use: "@switchyard/plugin-router"
  - use: "@switchyard/plugin-health"
  - use: "@switchyard/plugin-circuit-breaker"
  - use: "@switchyard/plugin-retry"
    options: { maxAttemptsPerCandidate: 1 }
${tenantPlugins}`;
}

export interface Served {
  child: ChildProcess;
  url: string;
  /** The access log file. */
  log: string;
}

/**
 * Starts `node <bundle>/bin.js serve` (plus BENCH_NODE_ARGS) and resolves once it listens.
 * `launcher`: a command node runs under (instructions.ts: valgrind and its options);
 * `configExtra`: YAML appended to the config (ab.ts's variants: `records: false`).
 */
export async function startServed(bundle: string, primary: string, secondary: string, nodeArgs: string[], tenants = false, launcher: string[] = [], configExtra = ''): Promise<Served> {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-'));
  const config = path.join(dir, 'switchyard.yaml');
  writeFileSync(config, servedConfig(primary, secondary, tenants) + (configExtra ? `${configExtra}\n` : ''));
  const log = path.join(dir, 'stdout.log');
  const out = openSync(log, 'w');
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const [command, ...launcherArgs] = [...launcher, process.execPath];
  const child = spawn(command!, [...launcherArgs, ...nodeArgs, ...profile, path.join(bundle, 'bin.js'), 'serve', '--config', config, '--no-watch'], { stdio: ['ignore', out, 'inherit'], env: { ...process.env, LOG_LEVEL: 'info' } });
  // The access log and the records' journal grow by megabytes a cell: gone with the process, unless BENCH_KEEP_SERVED is set (to read them).
  child.once('exit', () => {
    closeSync(out);
    if (!process.env.BENCH_KEEP_SERVED) rmSync(dir, { recursive: true, force: true });
  });
  // Under valgrind, start-up takes a minute.
  const deadline = Date.now() + (launcher.length > 0 ? 300_000 : 20_000);
  for (;;) {
    const match = /"event":"listening","url":"(http[^"]+)"/.exec(readFileSync(log, 'utf8'));
    if (match) return { child, url: match[1], log };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`switchyard serve did not start (exit ${child.exitCode}); its stdout: ${readFileSync(log, 'utf8').slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
