/**
 * The client × paths of the agent conformance suite that do not pass yet, with why. They run as
 * `it.fails` (support/conformance.ts): the suite turns red the day one starts passing, and
 * scripts/agents-table.ts shows them as failing in the README table. Remove an entry when its
 * path passes.
 */
export function testName(client: string, path: string): string {
  return `${client} × ${path}`;
}

export const KNOWN_FAILING: Record<string, string> = {};
