/**
 * What the production bundle (deploy/server, built by deploy/bundle.sh) carries. Starting it is
 * deploy/check-bundle.sh's job (.ci/run, after pnpm test); this keeps the package list honest.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readRepo, repoPath } from './support.js';

const server = JSON.parse(readRepo('deploy/server/package.json')) as { name: string; private?: boolean; dependencies: Record<string, string>; bin: Record<string, string>; files: string[] };
const packageName = (dir: string) => (JSON.parse(readRepo(`${dir}/package.json`)) as { name: string; private?: boolean }).name;

describe('the production bundle package', () => {
  it('depends on the CLI and on every first-party plugin a config may use:', () => {
    const plugins = readdirSync(repoPath('plugins')).map((dir) => packageName(`plugins/${dir}`));
    const wanted = ['@switchyard/cli', '@switchyard/contracts', '@switchyard/core', '@switchyard/gateway', ...plugins].sort();
    expect(Object.keys(server.dependencies).sort()).toEqual(wanted);
    for (const range of Object.values(server.dependencies)) expect(range).toBe('workspace:*');
  });

  it('never depends on test tooling', () => {
    for (const tooling of ['@switchyard/testkit', 'msw', 'vitest']) expect(server.dependencies).not.toHaveProperty(tooling);
  });

  it('is private, ships its bin.js and is the package deploy/bundle.sh deploys', () => {
    expect(server.private).toBe(true);
    expect(server.bin.switchyard).toBe('./bin.js');
    expect(server.files).toContain('bin.js');
    expect(readRepo('deploy/server/bin.js')).toContain("from '@switchyard/cli'");
    expect(readRepo('deploy/bundle.sh')).toContain(`--filter ${server.name} deploy --prod`);
    expect(readRepo('pnpm-workspace.yaml')).toMatch(/^ {2}- deploy\/server$/m);
  });
});
