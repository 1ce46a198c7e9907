/** OpenAI's own API (`https://api.openai.com/v1`, `Authorization: Bearer`). */
import { bearerAuth, defineOpenAIFamilyProvider, PDF_DOCUMENTS } from './provider.js';

export const openaiProvider = defineOpenAIFamilyProvider({
  id: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  // prefill: a cut answer continues here with the partial answer as the last assistant message or
  // output item (continuation.ts), which OpenAI's models take as theirs and carry on from.
  defaultCapabilities: ['tools', 'json', 'vision', 'stream', 'prefill'],
  pathFor: (operation) => `/${operation}`,
  authHeaders: bearerAuth,
  keepReasoning: false,
  responsesApi: true,
  documentTypes: PDF_DOCUMENTS,
});
