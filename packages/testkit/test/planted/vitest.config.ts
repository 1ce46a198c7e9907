// Runs only the planted-bug conformance files (they are meant to fail), with the repo's resolution.
// The root config's projects (unit, agents) are left out: they would replace this include list.
import type { ViteUserConfig } from 'vitest/config';
import root from '../../../../vitest.config.js';

const { projects: _projects, ...rootTest } = root.test ?? {};
const config: ViteUserConfig = { ...root, test: { ...rootTest, include: ['packages/testkit/test/planted/*.conformance.ts'], reporters: ['json'] } };
export default config;
