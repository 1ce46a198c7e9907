/**
 * Files the CLI ships next to its code (package.json, the bundled scenario), found through the
 * package's own exports so the same lookup works from src/ in the repo and from dist/ when
 * installed.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function cliVersion(): string {
  return (require('@switchyard/cli/package.json') as { version: string }).version;
}

/** The scenario `switchyard simulate` runs when no --scenario is given. */
export function defaultScenarioPath(): string {
  return require.resolve('@switchyard/cli/scenarios/twenty-days.yaml');
}
