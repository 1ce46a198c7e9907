#!/usr/bin/env node
// The `switchyard` command. Committed (not built) so that package managers can link it before
// anything is built: it runs the built CLI (dist/bin.js) when there is one, as in an installed
// package, and otherwise the TypeScript sources through tsx, as in a fresh clone of the repository.
// Either way it runs in the caller's working directory.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/bin.js', import.meta.url);
if (existsSync(built)) {
  await import(built.href);
} else {
  let tsx;
  try {
    tsx = import.meta.resolve('tsx');
  } catch {
    process.stderr.write('switchyard: this checkout is not built (no dist/bin.js) and tsx is not installed; run `pnpm install` or `pnpm build` in the repository\n');
    process.exit(1);
  }
  // The sources need the @switchyard/source export condition, which only a new process can set.
  const source = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=@switchyard/source', '--import', tsx, source, ...process.argv.slice(2)], { stdio: 'inherit' });
  // The CLI handles these itself (drain on SIGTERM/SIGINT, reload on SIGHUP): pass them on.
  const forward = (signal) => child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, forward);
  child.on('exit', (code, signal) => {
    if (code !== null) process.exit(code);
    // Killed by a signal: end the same way, so the caller sees what happened.
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.off(s, forward);
    process.kill(process.pid, signal);
  });
}
