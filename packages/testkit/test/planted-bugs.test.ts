/**
 * The two provider bugs that slipped through the old suite (a dropped token limit / a system
 * prompt sent as a user turn; a key in the query string), planted in test-only copies of the
 * OpenAI provider: the conformance suite must now fail on exactly the checks that cover them,
 * and pass everything else.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');

interface JsonReport { testResults: { name: string; assertionResults: { title: string; status: string }[] }[] }

async function runPlanted(): Promise<Map<string, { failed: string[]; passed: number }>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'switchyard-planted-'));
  const outputFile = path.join(dir, 'report.json');
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--config', path.join(here, 'planted/vitest.config.ts'), '--outputFile', outputFile], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, CI: 'true' } });
      const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
      child.on('error', reject);
      // Exit code 1 is the point: the planted bugs fail their checks.
      child.on('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    const report = JSON.parse(await readFile(outputFile, 'utf8')) as JsonReport;
    return new Map(report.testResults.map((file) => [path.basename(file.name, '.conformance.ts'), { failed: file.assertionResults.filter((a) => a.status === 'failed').map((a) => a.title), passed: file.assertionResults.filter((a) => a.status === 'passed').length }]));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('planted provider bugs', () => {
  it('each fails exactly the conformance checks that cover it', async () => {
    const results = await runPlanted();
    expect(results.get('dropsMaxTokens')?.failed).toEqual(['maps roles, tools and limits onto the wire request']);
    expect(results.get('systemAsUser')?.failed).toEqual(['maps roles, tools and limits onto the wire request']);
    expect(results.get('keyInQueryString')?.failed).toEqual(['sends an authenticated POST with the deployment model, the key in a header only', 'never puts the API key in a URL: chat, stream and probe requests']);
    for (const [, result] of results) expect(result.passed).toBeGreaterThan(10);
  }, 120_000);
});
