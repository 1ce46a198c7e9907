/**
 * The real release path on a throwaway copy of the workspace: a generated changeset bumps every
 * public package (patch), `changeset version` applies it, `changeset publish` publishes to the
 * local registry. The developer's worktree is only read (and built).
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { log, run } from './log.js';
import type { LocalRegistry } from './registry.js';

export interface PublicPackage { name: string; version: string; dir: string }

const PACKAGE_FOLDERS = ['packages', 'plugins'];
/** Published by the check like a first-party package, private in the repo (a real release skips it). */
export const TEMPLATE_DIR = 'examples/plugin-template';

async function readJson<T = Record<string, unknown>>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

/** Every package a real release publishes, plus the plugin template. */
export async function publicPackages(root: string): Promise<PublicPackage[]> {
  const found: PublicPackage[] = [];
  for (const folder of PACKAGE_FOLDERS) {
    for (const entry of (await readdir(path.join(root, folder))).sort()) {
      const file = path.join(root, folder, entry, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = await readJson<{ name: string; version: string; private?: boolean }>(file);
      if (!pkg.private) found.push({ name: pkg.name, version: pkg.version, dir: path.join(folder, entry) });
    }
  }
  if (existsSync(path.join(root, TEMPLATE_DIR, 'package.json'))) {
    const pkg = await readJson<{ name: string; version: string }>(path.join(root, TEMPLATE_DIR, 'package.json'));
    found.push({ name: pkg.name, version: pkg.version, dir: TEMPLATE_DIR });
  }
  return found;
}

/** Copies what git tracks (and untracked, unignored files) plus every built dist/. */
export async function copyWorkspace(root: string, target: string, packages: readonly PublicPackage[]): Promise<void> {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(path.join(root, file))) continue; // deleted but not yet committed
    await mkdir(path.dirname(path.join(target, file)), { recursive: true });
    await cp(path.join(root, file), path.join(target, file));
  }
  for (const p of packages) await cp(path.join(root, p.dir, 'dist'), path.join(target, p.dir, 'dist'), { recursive: true });
  // The install is the repo's own: the root node_modules by link (changesets resolves its
  // changelog module there), each package's node_modules as the same relative links, which now
  // point at the copy's packages. pnpm publish reads the linked versions to replace workspace:*.
  await symlink(path.join(root, 'node_modules'), path.join(target, 'node_modules'));
  for (const folder of [...PACKAGE_FOLDERS, 'examples']) {
    for (const entry of await readdir(path.join(root, folder))) {
      const modules = path.join(root, folder, entry, 'node_modules');
      if (existsSync(modules) && existsSync(path.join(target, folder, entry))) await cp(modules, path.join(target, folder, entry, 'node_modules'), { recursive: true, verbatimSymlinks: true });
    }
  }
  log(`copied ${files.length} files and ${packages.length} dist folders to ${target}`);
}

/** The command that publishes a release: the release workflow's publish step runs the same. */
export const RELEASE_PUBLISH = ['release:publish'] as const;

export async function versionAndPublish(copy: string, packages: readonly PublicPackage[], registry: LocalRegistry, env: NodeJS.ProcessEnv): Promise<PublicPackage[]> {
  const templateManifest = path.join(copy, TEMPLATE_DIR, 'package.json');
  if (existsSync(templateManifest)) {
    const pkg = await readJson(templateManifest);
    delete pkg.private;
    await writeFile(templateManifest, `${JSON.stringify(pkg, null, 2)}\n`);
  }
  const changeset = `---\n${packages.map((p) => `"${p.name}": patch`).join('\n')}\n---\n\nRelease check: every public package, as a real release publishes it.\n`;
  await writeFile(path.join(copy, '.changeset', 'release-check.md'), changeset);
  // The token goes into a user config of this run only; ~/.npmrc is never read or written.
  const userconfig = path.join(copy, '..', 'publish.npmrc');
  await writeFile(userconfig, `registry=${registry.url}\n${registry.authKey}:_authToken=${registry.token}\n`);
  const publishEnv = { ...env, npm_config_userconfig: userconfig, npm_config_registry: registry.url, npm_config_git_checks: 'false' };
  // The release workflow's publish step (.github/workflows/release.yml), word for word:
  // changeset version, then changeset publish of the built packages.
  const result = await run('pnpm', [...RELEASE_PUBLISH], { cwd: copy, env: publishEnv, timeoutMs: 600_000 });
  for (const line of `${result.stdout}\n${result.stderr}`.split('\n')) if (/published|error/i.test(line)) log(`  changeset: ${line.trim()}`);
  const versioned = await Promise.all(packages.map(async (p) => ({ ...p, version: (await readJson<{ version: string }>(path.join(copy, p.dir, 'package.json'))).version })));
  log(`versions after "changeset version": ${versioned.map((p) => `${p.name}@${p.version}`).join(', ')}`);
  for (const p of versioned) {
    const res = await fetch(`${registry.url}${p.name.replace('/', '%2f')}`, { headers: { authorization: `Bearer ${registry.token}` } });
    const doc = (await res.json()) as { versions?: Record<string, { dist: { tarball: string } }> };
    const published = doc.versions?.[p.version];
    if (!published) throw new Error(`${p.name}@${p.version} is not on the local registry after changeset publish`);
    log(`published ${p.name}@${p.version}: ${published.dist.tarball}`);
  }
  return versioned;
}
