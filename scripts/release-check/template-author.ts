/**
 * The plugin template as its author uses it: the folder copied out of the repository, its
 * `workspace:^` ranges replaced by the published versions, installed from the registries,
 * type-checked strict without skipLibCheck, built, and its conformance test run.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { log, run } from './log.js';
import { npmrc } from './apps.js';
import type { PublicPackage } from './publish.js';
import type { LocalRegistry } from './registry.js';

const TEMPLATE_FILES = ['package.json', 'README.md', 'tsconfig.json', 'tsup.config.ts', 'vitest.config.ts', 'src', 'test'];

export async function runTemplateAsAuthor(templateDir: string, dir: string, registry: LocalRegistry, published: readonly PublicPackage[]): Promise<void> {
  for (const file of TEMPLATE_FILES) await cp(path.join(templateDir, file), path.join(dir, file), { recursive: true });
  const manifestFile = path.join(dir, 'package.json');
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { devDependencies: Record<string, string>; private?: boolean };
  delete manifest.private;
  for (const [name, range] of Object.entries(manifest.devDependencies)) {
    if (!range.startsWith('workspace:')) continue;
    const version = published.find((p) => p.name === name)?.version;
    if (!version) throw new Error(`the template depends on ${name}, which the release did not publish`);
    manifest.devDependencies[name] = `^${version}`;
  }
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(dir, '.npmrc'), npmrc(registry));
  log(`template copied to ${dir}; devDependencies: ${JSON.stringify(manifest.devDependencies)}`);
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, timeoutMs: 600_000 });
  await run(path.join(dir, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json'], { cwd: dir });
  log('template: tsc (strict, nodenext, skipLibCheck: false): 0 errors');
  await run('npm', ['run', 'build', '--silent'], { cwd: dir });
  const { stdout } = await run(path.join(dir, 'node_modules/.bin/vitest'), ['run', '--reporter=dot'], { cwd: dir, env: { ...process.env, CI: 'true', NO_COLOR: '1' } });
  const summary = stdout.split('\n').filter((l) => /Tests|Test Files/.test(l)).map((l) => l.trim());
  log(`template conformance test with the installed @switchyard/testkit: ${summary.join('; ')}`);
}
