/** Agent conformance suite (support/conformance.ts): the OpenAI Agents SDK through the gateway, every path. */
import { openaiAgents } from './support/clients.js';
import { conformanceSuite } from './support/conformance.js';

conformanceSuite(openaiAgents);
