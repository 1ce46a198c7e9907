/**
 * OpenTelemetry GenAI semantic-convention names (gen_ai.*) and the mapping of Switchyard's
 * provider ids to `gen_ai.provider.name` values.
 */
export const ATTR = Object.freeze({
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  errorType: 'error.type',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  httpStatus: 'http.response.status_code',
});

const PROVIDER_NAMES: Readonly<Record<string, string>> = Object.freeze({
  openai: 'openai',
  'openai-compatible': 'openai',
  azure: 'azure.ai.openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
});

export function providerName(providerId: string): string {
  return PROVIDER_NAMES[providerId] ?? providerId;
}

export function operationName(kind: 'chat' | 'embeddings'): string {
  return kind === 'embeddings' ? 'embeddings' : 'chat';
}
