// Runs only the planted-bug conformance files (they are meant to fail), with the repo's resolution.
import root from '../../../../vitest.config.js';

export default { ...root, test: { ...root.test, include: ['packages/testkit/test/planted/*.conformance.ts'], reporters: ['json'] } };
