/**
 * vitest's global setup: the tests get a temp folder of their own (TMPDIR, which os.tmpdir() and
 * every child process that inherits the environment read), and whatever a test leaves in it is
 * named when the run ends. Each leftover is a test that did not clean up after itself: a folder
 * left per run fills a developer's or a CI machine's disk (before this guard, ~100 folders and
 * 30 MB a run). Under CI=true a leftover fails the run; elsewhere it is reported.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Set while the folder is in use: each project of the run calls the setup, and one folder serves them all. */
const MARK = 'SWITCHYARD_TESTS_TMPDIR';
/** What is a cache rather than a leftover: tsx's compile cache (`tsx-<uid>`), which a run's child processes share. */
const CACHES = /^tsx-\d+$/;

export default function setup(): () => void {
  if (process.env[MARK]) return () => undefined;
  // Short: Chromium puts a socket in it, and a socket's path has at most 107 characters.
  const folder = mkdtempSync(join(tmpdir(), 'sy-tests-'));
  const outer = process.env.TMPDIR;
  process.env.TMPDIR = process.env[MARK] = folder;
  return () => {
    if (outer === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = outer;
    delete process.env[MARK];
    const left = readdirSync(folder).filter((name) => !CACHES.test(name));
    rmSync(folder, { recursive: true, force: true });
    if (left.length === 0) return;
    const message = `the tests left ${left.length} entr${left.length === 1 ? 'y' : 'ies'} in their temp folder (each test removes what it makes): ${left.slice(0, 20).join(', ')}`;
    if (process.env.CI !== 'true') return console.warn(`warning: ${message}`);
    // vitest reports an error thrown here and still exits 0: the exit code is set instead.
    console.error(`error: ${message}`);
    process.exitCode = 1;
  };
}
