import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../src/serve-memory.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHURN = path.join(here, 'fixtures/old-generation-churn.ts');

async function churn(mode: 'limit' | 'default', nodeFlags: string[] = []): Promise<{ limited: boolean; fullCollections: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--max-semi-space-size=1', ...nodeFlags, '--conditions=@switchyard/source', '--import', 'tsx', CHURN, mode], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  return JSON.parse(stdout);
}

describe("serve's heap growth limit", () => {
  it('makes V8 collect the old generation several times as often as its default', async () => {
    const [byDefault, limited] = await Promise.all([churn('default'), churn('limit')]);
    expect(limited.limited).toBe(true);
    expect(byDefault.fullCollections).toBeGreaterThan(0);
    expect(limited.fullCollections).toBeGreaterThanOrEqual(3 * byDefault.fullCollections);
  }, 120_000);

  it("keeps an operator's own --heap-growing-percent (0 restores V8's default)", async () => {
    const [byDefault, own] = await Promise.all([churn('default'), churn('limit', ['--heap-growing-percent=0'])]);
    expect(own.limited).toBe(false);
    expect(own.fullCollections).toBeLessThan(2 * byDefault.fullCollections + 2);
  }, 120_000);

  it('leaves the flag alone when NODE_OPTIONS or the node command line sets it', () => {
    expect(limitHeapGrowth([], '--heap-growing-percent=50')).toBe(false);
    expect(limitHeapGrowth(['--heap_growing_percent=0'], '')).toBe(false);
  });
});
