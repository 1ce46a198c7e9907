import { readFile } from 'node:fs/promises';
import { loadScenarioFile } from '@switchyard/chaos';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../src/index.js';
import { defaultScenarioPath } from '../src/package-files.js';
import { capture } from './support.js';

const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as { version: string; files: string[] };

describe('what the installed CLI knows about itself', () => {
  it.each(['--version', '-v', 'version'])('%s prints the package version and exits 0', async (flag) => {
    const c = capture();
    expect(await main([flag], c.io)).toBe(0);
    expect(c.out).toBe(`${pkg.version}\n`);
  });

  it('simulate defaults to a scenario that ships in the package', async () => {
    const file = defaultScenarioPath();
    expect(file).toMatch(/packages\/cli\/scenarios\/twenty-days\.yaml$/);
    expect(pkg.files).toContain('scenarios');
    const scenario = await loadScenarioFile(file);
    expect(scenario.name).toBe('twenty-days');
    expect(scenario.endpoints.length).toBeGreaterThan(1);
    const c = capture();
    expect(await main(['simulate', '--help'], c.io)).toBe(0);
    expect(c.out).toContain('[--scenario <file>]');
  });

  it('the README lists every command', async () => {
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    for (const command of COMMANDS) {
      expect(readme).toMatch(new RegExp(`^  ${command.name} +\\S`, 'm'));
      expect(readme).toContain(`### ${command.name}`);
    }
  });
});
