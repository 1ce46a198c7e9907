/**
 * A Gemini API request (`generateContent`, `countTokens`) → the unified request, with the
 * client's body kept as its origin so a Gemini vendor gets it as it came (thought signatures,
 * safety settings, cached content and all). What other vendors do without is a hint (dropped for
 * them); what the answer depends on and only Gemini can do is a capability (other vendors are
 * skipped before any attempt, and a 400 names it when no Gemini target is left). Malformed
 * input is a 400 naming the client's field at once.
 */
import { SwitchyardError, type ChatMessage, type ChatRequest, type ContentPart, type ResponseFormat, type ToolCall, type ToolChoice, type ToolDefinition } from '@switchyard/core';
import { setRequestOrigin } from '@switchyard/core/wire';
import type { DecodedRequest, RequestFeature } from '@switchyard/core/dialect';
import { fromGeminiSchema } from '../schema.js';
import { GEMINI_GENERATE_CONTENT } from '../wire-format.js';

type Json = Record<string, unknown>;

export function invalid(path: string, message: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `${path}: ${message}`, { path, status: 400, retryable: false });
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Top-level fields decoded into the unified request. */
const CARRIED = new Set(['contents', 'systemInstruction', 'system_instruction', 'generationConfig', 'generation_config', 'tools', 'toolConfig', 'tool_config', 'model']);
/** Top-level fields other vendors do without. */
const HINTS: Readonly<Record<string, string>> = { safetySettings: 'safety settings', safety_settings: 'safety settings', labels: 'labels' };
/** generationConfig fields other vendors do without. */
const CONFIG_HINTS = new Set(['topK', 'thinkingConfig', 'responseModalities', 'mediaResolution', 'speechConfig', 'enableEnhancedCivicAnswers', 'responseLogprobs', 'logprobs', 'routingConfig', 'audioTimestamp']);
/** Tools only Google runs. */
const GOOGLE_TOOLS: Readonly<Record<string, string>> = {
  googleSearch: 'Google Search grounding',
  googleSearchRetrieval: 'Google Search retrieval',
  codeExecution: 'Gemini code execution',
  urlContext: 'URL context',
  googleMaps: 'Google Maps grounding',
  retrieval: 'Vertex retrieval',
  computerUse: 'Gemini computer use',
  fileSearch: 'Gemini file search',
};

class Features {
  readonly hints: RequestFeature[] = [];
  readonly capabilities: RequestFeature[] = [];
  hint(path: string, what: string): void {
    this.hints.push({ path, what });
  }
  capability(path: string, what: string): void {
    this.capabilities.push({ path, what });
  }
}

function dataUrl(mimeType: unknown, data: unknown, path: string): string {
  if (typeof mimeType !== 'string' || typeof data !== 'string') throw invalid(path, 'needs a mimeType and base64 data');
  return `data:${mimeType};base64,${data}`;
}

function userPart(part: Json, path: string, features: Features): ContentPart | undefined {
  if (typeof part.text === 'string') return { type: 'text', text: part.text };
  if (isObject(part.inlineData)) {
    const { mimeType, data } = part.inlineData;
    const url = dataUrl(mimeType, data, `${path}.inlineData`);
    if (typeof mimeType === 'string' && mimeType.startsWith('image/')) return { type: 'image_url', image_url: { url } };
    return { type: 'file', file: { file_data: url } };
  }
  if (isObject(part.fileData)) {
    const { fileUri, mimeType } = part.fileData;
    if (typeof fileUri !== 'string') throw invalid(`${path}.fileData.fileUri`, 'must be a string');
    // Files API and Cloud Storage URIs only Google can read; a public image URL any vendor can.
    if (!/^https?:\/\//i.test(fileUri) || fileUri.includes('generativelanguage.googleapis.com')) features.capability(`${path}.fileData`, 'a file stored at Google');
    return typeof mimeType === 'string' && !mimeType.startsWith('image/') ? { type: 'file', file: { file_data: fileUri } } : { type: 'image_url', image_url: { url: fileUri } };
  }
  if (part.executableCode !== undefined || part.codeExecutionResult !== undefined) {
    features.capability(path, 'a code execution part');
    return undefined;
  }
  throw invalid(path, 'must have text, inlineData, fileData, functionCall or functionResponse');
}

/** Call ids: the client's (`functionCall.id`), else made up in order and matched to responses by name. */
class CallIds {
  private readonly open = new Map<string, string[]>();
  private made = 0;
  call(name: string, given: unknown): string {
    const id = typeof given === 'string' && given.length > 0 ? given : `call_gemini_${this.made++}`;
    const list = this.open.get(name) ?? [];
    list.push(id);
    this.open.set(name, list);
    return id;
  }
  response(name: string, given: unknown): string {
    const list = this.open.get(name) ?? [];
    if (typeof given === 'string' && given.length > 0) {
      const at = list.indexOf(given);
      if (at >= 0) list.splice(at, 1);
      return given;
    }
    const id = list.shift();
    if (!id) throw invalid('contents', `a functionResponse for "${name}" answers no earlier functionCall`);
    return id;
  }
}

function responseText(response: unknown): string {
  return typeof response === 'string' ? response : JSON.stringify(response ?? {});
}

function decodeContents(contents: unknown, features: Features): ChatMessage[] {
  if (!Array.isArray(contents) || contents.length === 0) throw invalid('contents', 'must be a non-empty array of turns');
  const ids = new CallIds();
  const messages: ChatMessage[] = [];
  contents.forEach((turn, i) => {
    const path = `contents[${i}]`;
    if (!isObject(turn)) throw invalid(path, 'must be an object');
    const role = turn.role ?? 'user';
    if (role !== 'user' && role !== 'model' && role !== 'function') throw invalid(`${path}.role`, 'must be "user" or "model"');
    if (!Array.isArray(turn.parts)) throw invalid(`${path}.parts`, 'must be an array');
    const parts = turn.parts as unknown[];
    if (role === 'model') {
      let text = '';
      let reasoning = '';
      const calls: ToolCall[] = [];
      const signatures: Record<string, string> = {};
      let textSignature: string | undefined;
      parts.forEach((part, j) => {
        const at = `${path}.parts[${j}]`;
        if (!isObject(part)) throw invalid(at, 'must be an object');
        if (isObject(part.functionCall)) {
          const name = part.functionCall.name;
          if (typeof name !== 'string' || name.length === 0) throw invalid(`${at}.functionCall.name`, 'must be a non-empty string');
          const id = ids.call(name, part.functionCall.id);
          calls.push({ id, type: 'function', function: { name, arguments: JSON.stringify(part.functionCall.args ?? {}) } });
          if (typeof part.thoughtSignature === 'string') signatures[id] = part.thoughtSignature;
          return;
        }
        if (typeof part.thoughtSignature === 'string') textSignature = part.thoughtSignature;
        if (typeof part.text !== 'string') {
          if (part.thoughtSignature !== undefined) return;
          userPart(part, at, features);
          features.capability(at, 'media in a model turn');
          return;
        }
        if (part.thought === true) reasoning += part.text;
        else text += part.text;
      });
      const message: ChatMessage = { role: 'assistant', content: text.length > 0 ? text : null };
      if (calls.length > 0) message.tool_calls = calls;
      if (reasoning.length > 0) message.reasoning_content = reasoning;
      // The signatures go back to Gemini as the provider codec reads them (thought-signatures.ts).
      const firstCall = calls.find((c) => signatures[c.id]);
      if (firstCall || textSignature) {
        message.providerMetadata = { gemini: { ...(firstCall || textSignature ? { thoughtSignature: firstCall ? signatures[firstCall.id] : textSignature } : {}), ...(Object.keys(signatures).length > 0 ? { toolCallSignatures: signatures } : {}) } };
      }
      messages.push(message);
      return;
    }
    const content: ContentPart[] = [];
    parts.forEach((part, j) => {
      const at = `${path}.parts[${j}]`;
      if (!isObject(part)) throw invalid(at, 'must be an object');
      if (isObject(part.functionResponse)) {
        const name = part.functionResponse.name;
        if (typeof name !== 'string' || name.length === 0) throw invalid(`${at}.functionResponse.name`, 'must be a non-empty string');
        messages.push({ role: 'tool', tool_call_id: ids.response(name, part.functionResponse.id), content: responseText(part.functionResponse.response) });
        return;
      }
      const decoded = userPart(part, at, features);
      if (decoded) content.push(decoded);
    });
    if (content.length > 0) messages.push({ role: 'user', content: content.length === 1 && content[0]!.type === 'text' ? (content[0] as { text: string }).text : content });
  });
  return messages;
}

function systemText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (!isObject(value) || !Array.isArray(value.parts)) throw invalid('systemInstruction', 'must be a content with parts');
  return value.parts.map((part, j) => {
    if (!isObject(part) || typeof part.text !== 'string') throw invalid(`systemInstruction.parts[${j}]`, 'must be a text part');
    return part.text;
  }).join('\n');
}

function decodeTools(tools: unknown, features: Features): ToolDefinition[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('tools', 'must be an array');
  const out: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    if (!isObject(tool)) throw invalid(`tools[${i}]`, 'must be an object');
    for (const key of Object.keys(tool)) {
      if (key === 'functionDeclarations' || key === 'function_declarations') continue;
      features.capability(`tools[${i}].${key}`, GOOGLE_TOOLS[key] ?? `the tool "${key}"`);
    }
    const declarations = tool.functionDeclarations ?? tool.function_declarations;
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) throw invalid(`tools[${i}].functionDeclarations`, 'must be an array');
    declarations.forEach((fn, j) => {
      const path = `tools[${i}].functionDeclarations[${j}]`;
      if (!isObject(fn) || typeof fn.name !== 'string' || fn.name.length === 0) throw invalid(`${path}.name`, 'must be a non-empty string');
      const schema = fn.parametersJsonSchema ?? (fn.parameters !== undefined ? fromGeminiSchema(fn.parameters) : undefined);
      const parameters = isObject(schema) ? schema : { type: 'object', properties: {} };
      out.push({ type: 'function', function: { name: fn.name, ...(typeof fn.description === 'string' ? { description: fn.description } : {}), parameters } });
    });
  });
  return out;
}

function decodeToolChoice(config: unknown): ToolChoice | undefined {
  if (config === undefined || config === null) return undefined;
  if (!isObject(config)) throw invalid('toolConfig', 'must be an object');
  const calling = config.functionCallingConfig;
  if (calling === undefined) return undefined;
  if (!isObject(calling)) throw invalid('toolConfig.functionCallingConfig', 'must be an object');
  const mode = calling.mode ?? 'AUTO';
  const allowed = calling.allowedFunctionNames;
  if (mode === 'AUTO' || mode === 'MODE_UNSPECIFIED' || mode === 'VALIDATED') return 'auto';
  if (mode === 'NONE') return 'none';
  if (mode === 'ANY') return Array.isArray(allowed) && allowed.length === 1 && typeof allowed[0] === 'string' ? { type: 'function', function: { name: allowed[0] } } : 'required';
  throw invalid('toolConfig.functionCallingConfig.mode', 'must be "AUTO", "ANY", "NONE" or "VALIDATED"');
}

function optionalNumber(config: Json, field: string): number | undefined {
  const value = config[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`generationConfig.${field}`, 'must be a number');
  return value;
}

function applyGenerationConfig(request: ChatRequest, value: unknown, features: Features): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) throw invalid('generationConfig', 'must be an object');
  const number = (field: string) => optionalNumber(value, field);
  const set = <K extends keyof ChatRequest>(key: K, v: ChatRequest[K] | undefined) => {
    if (v !== undefined) request[key] = v;
  };
  set('temperature', number('temperature'));
  set('top_p', number('topP'));
  set('max_completion_tokens', number('maxOutputTokens'));
  set('seed', number('seed'));
  set('presence_penalty', number('presencePenalty'));
  set('frequency_penalty', number('frequencyPenalty'));
  const stop = value.stopSequences;
  if (stop !== undefined) {
    if (!Array.isArray(stop) || stop.some((s) => typeof s !== 'string')) throw invalid('generationConfig.stopSequences', 'must be an array of strings');
    request.stop = stop as string[];
  }
  const candidates = number('candidateCount');
  if (candidates !== undefined && candidates > 1) features.capability('generationConfig.candidateCount', 'more than one candidate');
  const schema = value.responseJsonSchema ?? value.response_json_schema ?? (value.responseSchema !== undefined ? fromGeminiSchema(value.responseSchema) : undefined);
  let format: ResponseFormat | undefined;
  if (isObject(schema)) format = { type: 'json_schema', json_schema: { name: 'response', schema } };
  else if (value.responseMimeType === 'application/json') format = { type: 'json_object' };
  else if (typeof value.responseMimeType === 'string' && value.responseMimeType !== 'text/plain') features.capability('generationConfig.responseMimeType', `a ${value.responseMimeType} answer`);
  if (format) request.response_format = format;
  for (const key of Object.keys(value)) if (CONFIG_HINTS.has(key)) features.hint(`generationConfig.${key}`, key);
}

export interface GeminiDecodeInput {
  /** The model from the URL (`models/{model}:generateContent`), percent-encoded. */
  model: string | undefined;
  body: unknown;
  bodyText?: string;
  /** `bodyText` as the client's bytes (kept as the origin's `bytes` with its text). */
  bodyBytes?: Uint8Array;
  stream: boolean;
}

/** A `generateContent` / `streamGenerateContent` body → the unified request and its origin. */
export function decodeGeminiRequest({ model: rawModel, body, bodyText, bodyBytes, stream }: GeminiDecodeInput): DecodedRequest {
  let model: string;
  try {
    model = decodeURIComponent(rawModel ?? '');
  } catch {
    throw invalid('model', 'the model in the URL is not valid percent-encoding');
  }
  if (model.startsWith('models/')) model = model.slice('models/'.length);
  if (model.length === 0) throw invalid('model', 'the URL names no model');
  if (!isObject(body)) throw invalid('(body)', 'the request body must be a JSON object');
  const features = new Features();
  const messages = decodeContents(body.contents, features);
  const system = systemText(body.systemInstruction ?? body.system_instruction);
  if (system) messages.unshift({ role: 'system', content: system });
  const request: ChatRequest = { model, messages };
  const tools = decodeTools(body.tools, features);
  if (tools.length > 0) request.tools = tools;
  const choice = decodeToolChoice(body.toolConfig ?? body.tool_config);
  if (choice !== undefined && tools.length > 0) request.tool_choice = choice;
  applyGenerationConfig(request, body.generationConfig ?? body.generation_config, features);
  if (stream) request.stream = true;
  for (const key of Object.keys(body)) {
    if (CARRIED.has(key)) continue;
    if (HINTS[key]) features.hint(key, HINTS[key]);
    else if (key === 'cachedContent' || key === 'cached_content') features.capability(key, 'cached content stored at Google');
    else features.capability(key, `the field "${key}"`);
  }
  setRequestOrigin(request, { format: GEMINI_GENERATE_CONTENT, body, text: bodyText, bytes: bodyBytes, ...(features.capabilities.length > 0 ? { untranslatable: features.capabilities } : {}) });
  return { request, stream, hints: features.hints, capabilities: features.capabilities };
}

/** A `countTokens` body: `{contents, …}` or `{generateContentRequest: {…}}`. */
export function decodeCountRequest(model: string | undefined, body: unknown): DecodedRequest {
  const inner = isObject(body) && isObject(body.generateContentRequest) ? body.generateContentRequest : body;
  const { model: _model, ...rest } = isObject(inner) ? inner : {};
  return decodeGeminiRequest({ model, body: isObject(inner) ? rest : inner, stream: false });
}
