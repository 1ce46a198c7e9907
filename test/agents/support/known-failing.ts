/**
 * The client × paths of the agent conformance suite that do not pass yet, with why. They run as
 * `it.fails` (support/conformance.ts): the suite turns red the day one starts passing, and
 * scripts/agents-table.ts shows them as failing in the README table. Remove an entry when its
 * path passes. SWITCHYARD_AGENTS_KNOWN_FAILING=run runs them as ordinary tests, to see why they fail.
 */
export function testName(client: string, path: string): string {
  return `${client} × ${path}`;
}

/** Whether `id` runs as `it.fails`. */
export function expectedToFail(id: string): boolean {
  return id in KNOWN_FAILING && process.env.SWITCHYARD_AGENTS_KNOWN_FAILING !== 'run';
}

export const KNOWN_FAILING: Record<string, string> = {};
