/**
 * The client × paths of the agent conformance suite that do not pass yet, with why. They run as
 * `it.fails` (support/conformance.ts): the suite turns red the day one starts passing, and
 * scripts/agents-table.ts shows them as failing in the README table. Remove an entry when its
 * path passes. SWITCHYARD_AGENTS_KNOWN_FAILING=run runs them as ordinary tests, to see why they fail.
 */
export function testName(client: string, path: string): string {
  return `${client} × ${path}`;
}

const RESPONSES_CUT =
  'a cut stream continues only on a deployment that can prefill (the partial answer as the last assistant turn); OpenAI Responses deployments cannot, so the cut reaches the client as an error event (Codex asks again on its own; the SDKs stop)';

/** Whether `id` runs as `it.fails`. */
export function expectedToFail(id: string): boolean {
  return id in KNOWN_FAILING && process.env.SWITCHYARD_AGENTS_KNOWN_FAILING !== 'run';
}

export const KNOWN_FAILING: Record<string, string> = {
  [testName('Codex CLI', 'cut, continued')]: RESPONSES_CUT,
  [testName('OpenAI Agents SDK', 'cut, continued')]: RESPONSES_CUT,
  [testName('AI SDK, OpenAI (Responses)', 'cut, continued')]: RESPONSES_CUT,
};
