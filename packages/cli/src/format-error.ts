/** Readable, secret-free error output: the message (one line per bad path) and its code. */
import { isSwitchyardError } from '@switchyard/core';
import { redact } from './secrets.js';

export function formatError(error: unknown, secrets: readonly string[] = []): string {
  if (!isSwitchyardError(error)) return redact(`error: ${error instanceof Error ? error.message : String(error)}\n`, secrets);
  const lines = error.message.split('\n');
  const body = lines.length === 1 ? `error: ${lines[0]}\n` : `error: invalid configuration\n${lines.map((l) => `  ${l}\n`).join('')}`;
  return redact(`${body}  (${error.code})\n`, secrets);
}

/** Every problem `validate` found, each with its code, under one count. */
export function formatProblems(problems: readonly unknown[], secrets: readonly string[] = []): string {
  if (problems.length === 1) return formatError(problems[0], secrets);
  const lines = problems.flatMap((problem) => {
    const message = problem instanceof Error ? problem.message : String(problem);
    const code = isSwitchyardError(problem) ? `  (${problem.code})` : '';
    return message.split('\n').map((line, i, all) => `  ${line}${i === all.length - 1 ? code : ''}\n`);
  });
  return redact(`error: ${lines.length} problem(s) in the configuration\n${lines.join('')}`, secrets);
}
