/** Real external tools (promtool, chromium): a test skips locally when one is absent but fails under CI=true. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export function findTool(name: string, candidates: string[] = []): string | undefined {
  for (const path of candidates) if (existsSync(path)) return path;
  const which = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  const found = which.stdout.trim();
  if (which.status === 0 && found) return found;
  if (process.env.CI === 'true') throw new Error(`${name} is required under CI=true (.ci/run installs it)`);
  return undefined;
}
