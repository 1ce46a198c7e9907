/**
 * The agent conformance suite's checks, one test file per client (test/agents/*.test.ts, so
 * vitest runs clients side by side): each pinned client (test/agents/<folder>, installed by
 * .ci/install-agents.sh) runs a short tool-using session through the gateway against scripted
 * loopback vendors, once per path (support/rig.ts). A client × path passes only when the scripted
 * vendor received the tool result, the client's output holds the vendor's final marker, no
 * vendor refused the thinking history as Anthropic would, no non-loopback dial was tried, and after
 * a cut the second turn of the same session is answered.
 *
 * KNOWN_FAILING lists the client × paths that do not pass yet, with why: they run as `it.fails`,
 * so the suite turns red the day one starts passing (move it out of the list then), and
 * scripts/agents-table.ts reports them as failing in the README table. Without the installed
 * clients the suite skips, except under CI=true where that is an error.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stopAll } from '../../../packages/gateway/test/support/harness.js';
import { AGENTS_DIR, type AgentClient, type Run } from './clients.js';
import { expectedToFail, testName } from './known-failing.js';
import { PATHS, type PathName } from './paths.js';
import { startRig, type Rig } from './rig.js';
import { FINAL_MARKER, SECOND_MARKER, SECOND_PROMPT } from './scripted-vendor.js';

const PROMPT = 'What do my notes in notes.txt say? Read the file, then tell me.';

function outputOf(run: Run): string {
  return `${run.stdout}\n${run.stderr}`;
}

async function check(client: AgentClient, path: PathName, rigs: Rig[]): Promise<void> {
  const rig = await startRig(client.api, path);
  rigs.push(rig);
  const first = await client.turn(rig.session, PROMPT, 1);
  const detail = `${client.name} × ${path}\nstdout:\n${first.stdout.slice(-2000)}\nstderr:\n${first.stderr.slice(-2000)}\nrefusals: ${rig.script.refusals.join(' | ')}`;
  expect(rig.script.toolCalls, detail).toBeGreaterThan(0);
  expect(rig.script.toolResults.length, detail).toBeGreaterThan(0);
  if (path === 'failover') expect(rig.vendors.every((v) => v.requests.length > 0), detail).toBe(true);
  // Healed by the gateway, not by the client asking again.
  if (path === 'cut, continued') expect(rig.script.continuations, detail).toBeGreaterThan(0);
  if (path !== 'cut, not continued') expect(outputOf(first), detail).toContain(FINAL_MARKER);
  if (path.startsWith('cut')) {
    expect(rig.script.cuts, detail).toBe(1);
    const second = await client.turn(rig.session, SECOND_PROMPT, 2);
    const detail2 = `${detail}\nsecond turn stdout:\n${second.stdout.slice(-2000)}\nstderr:\n${second.stderr.slice(-2000)}\nrefusals: ${rig.script.refusals.join(' | ')}`;
    expect(outputOf(second), detail2).toContain(SECOND_MARKER);
  }
  expect(rig.script.refusals, detail).toEqual([]);
  expect(rig.guard.dials, detail).toEqual([]);
  expect(readFileSync(rig.session.dialLog, 'utf8').split('\n').filter(Boolean), detail).toEqual([]);
}

/** The suite for one client: every path, the known failures as `it.fails`. */
export function conformanceSuite(client: AgentClient): void {
  if (!client.installed() && process.env.CI === 'true') throw new Error(`${client.name} is not installed under ${AGENTS_DIR}: .ci/run installs it (bash .ci/install-agents.sh)`);
  const rigs: Rig[] = [];
  afterEach(async () => {
    await Promise.all(rigs.splice(0).map((r) => r.close()));
    await stopAll();
  });
  describe.skipIf(!client.installed())(client.name, () => {
    for (const path of PATHS) {
      const id = testName(client.name, path);
      const test = expectedToFail(id) ? it.fails : it;
      test(id, () => check(client, path, rigs), 330_000);
    }
  });
}
