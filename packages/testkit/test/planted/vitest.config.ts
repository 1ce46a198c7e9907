// Runs only the planted-bug conformance files (they are meant to fail), with the repo's resolution.
import type { ViteUserConfig } from 'vitest/config';
import root from '../../../../vitest.config.js';

const config: ViteUserConfig = { ...root, test: { ...root.test, include: ['packages/testkit/test/planted/*.conformance.ts'], reporters: ['json'] } };
export default config;
