import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { replaceFile } from '../src/replace-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-replace-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('replaceFile', () => {
  it('puts the new text in place, with its mode, and leaves no temporary file', async () => {
    const file = join(dir, 'journal');
    await writeFile(file, 'old\n');
    await replaceFile(file, async (out) => void (await out.write('new\n')), { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['journal']);
  });

  it('keeps the old file whole when writing the new one fails', async () => {
    const file = join(dir, 'queue');
    await writeFile(file, 'old\n');
    const failing = replaceFile(file, async (out) => {
      await out.write('half');
      throw new Error('disk full');
    });
    await expect(failing).rejects.toThrow('disk full');
    expect(await readFile(file, 'utf8')).toBe('old\n');
    expect(await readdir(dir)).toEqual(['queue']);
  });
});
