/** attw (ESM-only profile) and publint --strict on the tarballs the registry serves. */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, run } from './log.js';
import type { PublicPackage } from './publish.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = (name: string) => path.join(ROOT, 'node_modules/.bin', name);

/** Downloads each published tarball through npm (the app folder's .npmrc maps our scopes). */
export async function fetchTarballs(appDir: string, target: string, packages: readonly PublicPackage[]): Promise<string[]> {
  await mkdir(target, { recursive: true });
  await run('npm', ['pack', ...packages.map((p) => `${p.name}@${p.version}`), '--pack-destination', target, '--loglevel=error'], { cwd: appDir });
  const files = (await readdir(target)).filter((f) => f.endsWith('.tgz')).sort();
  if (files.length !== packages.length) throw new Error(`expected ${packages.length} tarballs, got ${files.length}`);
  return files.map((f) => path.join(target, f));
}

export async function lintTarballs(tarballs: readonly string[]): Promise<void> {
  for (const tgz of tarballs) {
    const name = path.basename(tgz);
    // attw exits non-zero on a problem its profile counts; the JSON says which entry points it checked.
    const attw = await run(bin('attw'), ['--profile', 'esm-only', '--format', 'json', tgz]);
    const report = JSON.parse(attw.stdout) as { analysis: { entrypoints: Record<string, unknown> }; problems?: Record<string, { resolutionKind?: string }[]> };
    const problems = Object.values(report.problems ?? {}).flat();
    const counted = problems.filter((p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs');
    if (counted.length) throw new Error(`attw found ${counted.length} problems in ${name}: ${JSON.stringify(counted)}`);
    log(`attw --profile esm-only ${name}: entry points ${Object.keys(report.analysis.entrypoints).join(', ')}: node16 (from ESM) and bundler OK, 0 problems (${problems.length} CommonJS/node10 notes ignored by the ESM-only profile)`);
    const publint = await run(bin('publint'), ['run', tgz, '--strict']);
    log(`publint --strict ${name}: ${publint.stdout.trim().split('\n').at(-1)}`);
  }
}
