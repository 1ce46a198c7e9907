/** OpenAI's own API (`https://api.openai.com/v1`, `Authorization: Bearer`). */
import { bearerAuth, defineOpenAIFamilyProvider, PDF_DOCUMENTS } from './provider.js';

export const openaiProvider = defineOpenAIFamilyProvider({
  id: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  defaultCapabilities: ['tools', 'json', 'vision', 'stream'],
  pathFor: (operation) => `/${operation}`,
  authHeaders: bearerAuth,
  keepReasoning: false,
  responsesApi: true,
  documentTypes: PDF_DOCUMENTS,
});
