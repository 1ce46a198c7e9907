/** Agent conformance suite (support/conformance.ts): Codex CLI through the gateway, every path. */
import { codex } from './support/clients.js';
import { conformanceSuite } from './support/conformance.js';

conformanceSuite(codex);
