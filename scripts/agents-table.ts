/**
 * Writes the README's agent table (client × version × path) from the agent conformance suite's
 * results: runs `vitest run --project agents` with the JSON reporter (or reads a result file
 * given as `--from <file>`), then replaces the README section between the agents-table markers.
 * A path listed in test/agents/support/known-failing.ts runs as `it.fails`: its "passed" result
 * means the path failed, and the table says so. A skipped client (not installed) fails the script:
 * the table is only ever written from a full run.
 *
 *   pnpm agents:table [--from results.json]
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLIENTS, pinnedVersion } from '../test/agents/support/clients.js';
import { KNOWN_FAILING, testName } from '../test/agents/support/known-failing.js';
import { PATHS } from '../test/agents/support/paths.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = join(ROOT, 'README.md');
const START = '<!-- agents-table:start (scripts/agents-table.ts writes this) -->';
const END = '<!-- agents-table:end -->';

interface Assertion {
  title: string;
  status: string;
}

function results(): Map<string, string> {
  const from = process.argv.indexOf('--from');
  let file: string;
  if (from > 0) file = process.argv[from + 1]!;
  else {
    file = join(mkdtempSync(join(tmpdir(), 'sy-agents-table-')), 'results.json');
    spawnSync('pnpm', ['vitest', 'run', '--project', 'agents', '--reporter=json', `--outputFile=${file}`], { cwd: ROOT, stdio: 'inherit' });
  }
  const json = JSON.parse(readFileSync(file, 'utf8')) as { testResults: { assertionResults: Assertion[] }[] };
  return new Map(json.testResults.flatMap((f) => f.assertionResults.map((a) => [a.title, a.status] as const)));
}

/** What a cell says: a known failure's `it.fails` passes when the path fails. */
export function cell(status: string | undefined, knownFailing: boolean): string {
  if (status === 'passed') return knownFailing ? 'fails' : 'passes';
  if (status === 'failed') return knownFailing ? 'passes (remove it from known-failing.ts)' : 'FAILS (unexpected)';
  throw new Error(`no result (${status ?? 'not run'}): the table is written from a full run with every client installed`);
}

export function table(statuses: Map<string, string>): string {
  const lines = [`| Client | Pinned | ${PATHS.join(' | ')} |`, `| --- | --- | ${PATHS.map(() => '---').join(' | ')} |`];
  for (const client of CLIENTS) {
    const cells = PATHS.map((path) => {
      const id = testName(client.name, path);
      return cell(statuses.get(id), id in KNOWN_FAILING);
    });
    lines.push(`| ${client.name} | ${pinnedVersion(client)} | ${cells.join(' | ')} |`);
  }
  const why = Object.entries(KNOWN_FAILING).map(([id, reason]) => `- ${id}: ${reason}`);
  return [...lines, ...(why.length ? ['', 'Why the failing paths fail:', '', ...why] : [])].join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no agents table markers (${START} … ${END})`);
  const body = table(results());
  writeFileSync(README, `${readme.slice(0, start + START.length)}\n${body}\n${readme.slice(end)}`);
  console.log(body);
}
