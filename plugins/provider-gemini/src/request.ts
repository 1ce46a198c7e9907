/** Unified (OpenAI-shaped) chat request → a Gemini `generateContent` HTTP request. */
import type { BuildOptions, Candidate, ChatRequest, ProviderRequest, ToolChoice, ToolDefinition } from '@switchyard/core';
import { SwitchyardError } from '@switchyard/core';
import { toGeminiConversation } from './contents.js';
import { unsupported } from './unsupported.js';
import { toGeminiParameters, toGeminiSchema } from './schema.js';

/** Endpoint `options` this provider reads. */
export interface GeminiEndpointOptions {
  /** Merged into every request's `generationConfig` (e.g. `thinkingConfig`); request fields win. */
  generationConfig?: Record<string, unknown>;
  /** Sent as `safetySettings`. */
  safetySettings?: unknown[];
  /** Send Google's placeholder thought signature on function calls from another vendor (default true). */
  fillMissingThoughtSignatures?: boolean;
}

function endpointOptions(target: Candidate): GeminiEndpointOptions {
  return (target.endpoint.options ?? {}) as GeminiEndpointOptions;
}

/** `gemini-2.5-flash`, `models/gemini-2.5-flash` or `tunedModels/x` → the resource path. */
export function modelPath(model: string): string {
  const name = model.includes('/') ? model : `models/${model}`;
  const segments = name.split('/');
  // `..` or extra segments would move the request to another resource of the API.
  if (segments.length !== 2 || segments.some((s) => s === '' || s === '.' || s === '..' || /%2e|%2f/i.test(s))) {
    throw new SwitchyardError('config', `gemini: model "${model}" is not a model name (expected "name", "models/name" or "tunedModels/name")`, { code: 'SWITCHYARD_ERR_CONFIG', path: 'model', provider: 'gemini' });
  }
  return `/${segments.map(encodeURIComponent).join('/')}`;
}

function functionDeclarations(tools: readonly ToolDefinition[]) {
  return tools
    .filter((tool) => tool.type === 'function' && tool.function)
    .map(({ function: fn }) => {
      const parameters = toGeminiParameters(fn.parameters);
      return { name: fn.name, ...(fn.description ? { description: fn.description } : {}), ...(parameters ? { parameters } : {}) };
    });
}

function functionCallingConfig(choice: ToolChoice) {
  if (choice === 'auto') return { mode: 'AUTO' };
  if (choice === 'none') return { mode: 'NONE' };
  if (choice === 'required') return { mode: 'ANY' };
  if (typeof choice === 'object' && typeof choice.function?.name === 'string') return { mode: 'ANY', allowedFunctionNames: [choice.function.name] };
  throw unsupported('must be "auto", "none", "required" or {type:"function",function:{name}}', 'tool_choice');
}

function generationConfig(request: ChatRequest, defaults: Record<string, unknown> | undefined): Record<string, unknown> {
  const config: Record<string, unknown> = { ...defaults };
  const set = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) config[key] = value;
  };
  set('temperature', request.temperature);
  set('topP', request.top_p);
  set('maxOutputTokens', request.max_completion_tokens ?? request.max_tokens);
  set('stopSequences', typeof request.stop === 'string' ? [request.stop] : request.stop);
  set('seed', request.seed);
  set('presencePenalty', request.presence_penalty);
  set('frequencyPenalty', request.frequency_penalty);
  const format = request.response_format;
  if (format?.type === 'json_object' || format?.type === 'json_schema') config.responseMimeType = 'application/json';
  if (format?.type === 'json_schema') set('responseSchema', toGeminiSchema(format.json_schema?.schema));
  return config;
}

/** The `generateContent` body: contents, system instruction, tools, generation config. */
export function geminiRequestBody(request: ChatRequest, target: Candidate): Record<string, unknown> {
  const options = endpointOptions(target);
  const conversation = toGeminiConversation(request.messages, { fillMissingSignatures: options.fillMissingThoughtSignatures !== false });
  const body: Record<string, unknown> = { ...conversation };
  const declarations = functionDeclarations(request.tools ?? []);
  if (declarations.length > 0) {
    body.tools = [{ functionDeclarations: declarations }];
    if (request.tool_choice !== undefined) body.toolConfig = { functionCallingConfig: functionCallingConfig(request.tool_choice) };
  }
  const config = generationConfig(request, options.generationConfig);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  if (options.safetySettings) body.safetySettings = options.safetySettings;
  return body;
}

export function geminiHeaders(target: Candidate): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  // The key goes in a header, never in the URL, where proxies and access logs would keep it.
  if (target.apiKey) headers['x-goog-api-key'] = target.apiKey;
  return headers;
}

export function buildGeminiRequest(request: ChatRequest, target: Candidate, { stream }: BuildOptions): ProviderRequest {
  return {
    method: 'POST',
    path: `${modelPath(target.model)}${stream ? ':streamGenerateContent?alt=sse' : ':generateContent'}`,
    headers: geminiHeaders(target),
    body: JSON.stringify(geminiRequestBody(request, target)),
  };
}
