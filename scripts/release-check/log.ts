/** Phase logging and child processes for the release check: every command is printed with its folder. */
import { spawn, type SpawnOptions } from 'node:child_process';

const started = Date.now();
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export function log(line: string): void {
  process.stdout.write(`[release-check +${seconds(Date.now() - started)}] ${line}\n`);
}

/** Runs one named phase; a failure names the phase and stops the check. */
export async function phase<T>(name: string, work: () => Promise<T>): Promise<T> {
  log(`=== ${name}`);
  const t0 = Date.now();
  try {
    const result = await work();
    log(`=== ${name}: ok (${seconds(Date.now() - t0)})`);
    return result;
  } catch (error) {
    log(`=== ${name}: FAILED (${seconds(Date.now() - t0)})`);
    throw error;
  }
}

export interface RunResult { stdout: string; stderr: string; ms: number }

export interface RunOptions extends Pick<SpawnOptions, 'cwd' | 'env'> {
  /** Print the command's output as it comes (long installs); otherwise only on failure. */
  echo?: boolean;
  timeoutMs?: number;
}

export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  log(`$ ${[command, ...args].join(' ')}${options.cwd ? `   (in ${String(options.cwd)})` : ''}`);
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => {
      stdout += d;
      if (options.echo) process.stdout.write(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d;
      if (options.echo) process.stderr.write(d);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 300_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - t0;
      if (code === 0) return resolve({ stdout, stderr, ms });
      if (!options.echo) process.stdout.write(`${stdout}\n${stderr}\n`);
      reject(new Error(`${command} ${args.join(' ')} exited with ${code ?? signal}`));
    });
  });
}
