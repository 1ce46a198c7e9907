/** Agent conformance suite (support/conformance.ts): the AI SDK's Anthropic provider through the gateway, every path. */
import { aiSdkAnthropic } from './support/clients.js';
import { conformanceSuite } from './support/conformance.js';

conformanceSuite(aiSdkAnthropic);
