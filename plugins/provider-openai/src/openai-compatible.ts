/**
 * Any server that speaks Chat Completions (DeepSeek, Ollama, vLLM, Groq, OpenRouter…). There is
 * no default base URL: the endpoint names the server, `…/v1` included. The key is optional
 * (local Ollama and vLLM without `--api-key` need none).
 */
import { bearerAuth, defineOpenAIFamilyProvider } from './provider.js';

export const openaiCompatibleProvider = defineOpenAIFamilyProvider({
  id: 'openai-compatible',
  defaultCapabilities: ['stream'],
  pathFor: (operation) => `/${operation}`,
  authHeaders: bearerAuth,
  keepReasoning: true,
});
