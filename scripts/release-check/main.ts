/**
 * `pnpm release:check`: the packages as users install them. Builds every package, publishes
 * them with changesets to a throwaway verdaccio, installs them into fresh apps with npm and
 * pnpm, type-checks those apps (nodenext and bundler, strict, no skipLibCheck), runs the
 * README examples and `switchyard serve` from the installed CLI against loopback vendors, and
 * lints the tarballs with attw and publint. Only package installs leave the machine.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFullApp, formatKb, install, measureInstall, runExamples, serveOnce, TS_PROJECTS, typecheck, type InstallMeasurement } from './apps.js';
import { log, phase, run } from './log.js';
import { copyWorkspace, publicPackages, TEMPLATE_DIRS, versionAndPublish } from './publish.js';
import { startRegistry, type LocalRegistry } from './registry.js';
import { fetchTarballs, lintTarballs } from './tarballs.js';
import { startMockVendors, type MockVendors } from './vendors.js';
import { runTemplateAsAuthor } from './template-author.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CACHE = path.join(ROOT, 'node_modules/.cache/release-check');

async function main(): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), 'switchyard-release-check-'));
  log(`work folder ${work}`);
  let registry: LocalRegistry | undefined;
  let vendors: MockVendors | undefined;
  try {
    const packages = await publicPackages(ROOT);
    log(`public packages: ${packages.map((p) => p.name).join(', ')}`);
    // Packages whose dist/ is newer than their sources are reused (scripts/build-stale.sh);
    // RELEASE_CHECK_SKIP_BUILD=1 reuses every dist/ as it is (local iterations only).
    if (!process.env.RELEASE_CHECK_SKIP_BUILD) await phase('build every package whose dist/ is missing or stale (tsup: ESM + .d.ts)', async () => {
      const built = await run('bash', ['scripts/build-stale.sh', ...packages.map((p) => `./${p.dir}`)], { cwd: ROOT, timeoutMs: 900_000 });
      log(built.stdout.split('\n').find((line) => line.startsWith('build:')) ?? '');
    });
    registry = await phase('start a throwaway verdaccio', () => startRegistry(work, CACHE));
    const reg = registry;
    const copy = path.join(work, 'workspace');
    const published = await phase('changeset version + changeset publish to the local registry', async () => {
      await copyWorkspace(ROOT, copy, packages);
      return versionAndPublish(copy, packages, reg, { ...process.env, CI: 'true' });
    });
    const templates = published.filter((p) => TEMPLATE_DIRS.includes(p.dir));
    const firstParty = published.filter((p) => !templates.includes(p));
    vendors = await startMockVendors();
    const v = vendors;
    log(`loopback vendors: refusing ${v.refusingUrl}, OpenAI ${v.openaiUrl}, Anthropic ${v.anthropicUrl}`);
    for (const manager of ['npm', 'pnpm'] as const) {
      const app = path.join(work, `app-${manager}`);
      await phase(`fresh app, ${manager} install of every package`, async () => {
        await createFullApp(app, reg, published);
        await install(app, manager);
      });
      // Four projects on the npm app; the pnpm app's own layout (strict, symlinked) under nodenext.
      const projects = manager === 'npm' ? TS_PROJECTS : TS_PROJECTS.slice(0, 1);
      await phase(`type-check the ${manager} app without skipLibCheck: ${projects.join(', ')}`, () => typecheck(app, projects));
      await phase(`run the README example (primary refuses, fallback answers), the streaming example, events, a plugin's own words (${manager} app)`, () => runExamples(app, v));
      await phase(`switchyard serve from the installed CLI (${manager} app)`, () => serveOnce(app, v));
    }
    // The provider template and the policy-plugin template (the tutorial's guardrail: its own error code and event, no core change).
    for (const template of templates) {
      const authorDir = path.join(work, `template-author-${path.basename(template.dir)}`);
      await mkdir(authorDir, { recursive: true });
      await phase(`${template.dir} as its author uses it: installed from the registry, type-checked, built, its tests run`, () => runTemplateAsAuthor(path.join(copy, template.dir), authorDir, reg, published));
    }
    await phase('attw --profile esm-only and publint --strict on the published tarballs', async () => {
      await lintTarballs(await fetchTarballs(path.join(work, 'app-npm'), path.join(work, 'tarballs'), published));
    });
    const sizes: InstallMeasurement[] = [];
    await phase('install size and time in empty apps (cold npm cache)', async () => {
      const pick = (...names: string[]) => names.map((n) => firstParty.find((p) => p.name === n)!);
      sizes.push(await measureInstall(path.join(work, 'size-library'), reg, 'core + provider-openai + plugin-retry + plugin-circuit-breaker', pick('@switchyard/core', '@switchyard/provider-openai', '@switchyard/plugin-retry', '@switchyard/plugin-circuit-breaker')));
      sizes.push(await measureInstall(path.join(work, 'size-cli'), reg, '@switchyard/cli', pick('@switchyard/cli')));
    });
    log('install sizes:');
    log('| install | node_modules | packages | time (cold cache) |');
    log('|---|---|---|---|');
    for (const s of sizes) log(`| ${s.label} | ${formatKb(s.kb)} | ${s.count} | ${s.seconds.toFixed(1)} s |`);
    log('release check passed');
  } finally {
    await vendors?.close();
    await registry?.stop();
    if (!process.env.RELEASE_CHECK_KEEP) await rm(work, { recursive: true, force: true });
    else log(`kept ${work}`);
  }
}

main().catch((error: unknown) => {
  log(`release check FAILED: ${(error as Error)?.stack ?? String(error)}`);
  process.exitCode = 1;
});
