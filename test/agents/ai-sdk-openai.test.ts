/** Agent conformance suite (support/conformance.ts): the AI SDK's OpenAI provider (Responses) through the gateway, every path. */
import { aiSdkOpenAI } from './support/clients.js';
import { conformanceSuite } from './support/conformance.js';

conformanceSuite(aiSdkOpenAI);
