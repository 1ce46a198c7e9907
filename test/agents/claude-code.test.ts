/** Agent conformance suite (support/conformance.ts): Claude Code through the gateway, every path. */
import { claudeCode } from './support/clients.js';
import { conformanceSuite } from './support/conformance.js';

conformanceSuite(claudeCode);
