/**
 * The path that publishes is the path that is tested: the tag-driven workflow's publish step
 * runs the very command the release check runs against verdaccio (scripts/release-check).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { RELEASE_PUBLISH } from '../release-check/publish.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const temp: string[] = [];
afterEach(async () => {
  for (const dir of temp.splice(0)) await rm(dir, { recursive: true, force: true });
});

interface Step { name?: string; run?: string; env?: Record<string, string> }

describe('the release path', () => {
  it('is a workflow driven by version tags whose publish step is the release check\'s command', async () => {
    const workflow = parse(await readFile(path.join(ROOT, '.github/workflows/release.yml'), 'utf8')) as { on: { push: { tags: string[] } }; jobs: Record<string, { steps: Step[] }> };
    expect(workflow.on.push.tags).toEqual(['v*']);
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const publish = steps.filter((s) => s.run?.includes('publish'));
    expect(publish).toHaveLength(1);
    expect(publish[0].run).toBe(`pnpm ${RELEASE_PUBLISH.join(' ')}`);
    expect(publish[0].env?.NODE_AUTH_TOKEN).toBe('${{ secrets.NPM_TOKEN }}');
    // The tests and the release check run before it, in the same job.
    expect(steps.findIndex((s) => s.run === 'bash .ci/run')).toBeLessThan(steps.indexOf(publish[0]));
    const scripts = (JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts[RELEASE_PUBLISH[0]]).toBe('bash scripts/release-publish.sh');
  });

  it('refuses to publish packages that are not built, naming them, before changesets runs', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'switchyard-release-publish-'));
    temp.push(dir);
    await mkdir(path.join(dir, 'scripts'));
    await cp(path.join(ROOT, 'scripts/release-publish.sh'), path.join(dir, 'scripts/release-publish.sh'));
    for (const [folder, manifest, built] of [['packages/built', { name: 'a' }, true], ['plugins/unbuilt', { name: 'b' }, false], ['packages/internal', { name: 'c', private: true }, false]] as const) {
      await mkdir(path.join(dir, folder, built ? 'dist' : ''), { recursive: true });
      await writeFile(path.join(dir, folder, 'package.json'), JSON.stringify(manifest, null, 2));
    }
    const failure = await promisify(execFile)('bash', [path.join(dir, 'scripts/release-publish.sh')], { cwd: dir }).catch((e: { code: number; stderr: string }) => e);
    expect(failure).toMatchObject({ code: 1, stderr: 'release:publish: not built: plugins/unbuilt; run pnpm build first\n' });
  });
});
