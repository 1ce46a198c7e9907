import { defineConfig } from 'vitest/config';
import PlainSummaryReporter from './test/plain-summary-reporter.js';

// Tests run on a clean checkout without a build: the "@switchyard/source" export condition points
// every workspace package at its TypeScript sources. It is scoped so that no user's own
// `customConditions` (a plain "source" is a common convention) ever resolves into our src/.
export default defineConfig({
  resolve: { conditions: ['@switchyard/source', 'module', 'node', 'import', 'default'] },
  // No "module" condition for server code: @opentelemetry/api's "module" build has extension-less
  // imports that only bundlers resolve (prom-client and the AI SDK load it).
  ssr: { resolve: { conditions: ['@switchyard/source', 'node', 'default'], externalConditions: ['@switchyard/source'] } },
  test: {
    reporters: ['default', new PlainSummaryReporter()],
    globalSetup: ['./test/temp-folder.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'plugins/*/src/**/*.test.ts', 'plugins/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'examples/*/src/**/*.test.ts', 'deploy/test/**/*.test.ts', 'scripts/test/**/*.test.ts'],
        },
      },
      // The agent conformance suite (test/agents): the pinned agent clients, run headless against
      // the gateway with scripted vendors; `pnpm vitest run --project agents` runs it alone.
      { extends: true, test: { name: 'agents', include: ['test/agents/**/*.test.ts'] } },
    ],
  },
});
