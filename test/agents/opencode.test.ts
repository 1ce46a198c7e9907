/** Agent conformance suite (support/conformance.ts): opencode through the gateway, every path. */
import { opencode } from './support/clients.js';
import { conformanceSuite } from './support/conformance.js';

conformanceSuite(opencode);
