/** Where a command writes and what it reads from its environment; tests pass their own. */
export interface Output {
  write(text: string): unknown;
}

export interface CliIO {
  out: Output;
  err: Output;
  env: Record<string, string | undefined>;
  cwd: string;
}

export function processIO(): CliIO {
  return { out: process.stdout, err: process.stderr, env: process.env, cwd: process.cwd() };
}

/** Exit codes: 0 ok, 1 the command failed, 2 the command line was wrong. */
export const EXIT = Object.freeze({ OK: 0, FAILED: 1, USAGE: 2 });
