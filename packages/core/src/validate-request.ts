/** Checks a request before any work: bad input fails with a coded error and no upstream attempt. */
import { SwitchyardError } from './errors.js';
import type { ChatRequest, EmbeddingRequest } from './types.js';
import { checkRequestLimits, type RequestLimits } from './request-limits.js';
import { checkSwitchyardHints } from './switchyard-hints.js';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

function invalid(message: string, path: string): SwitchyardError {
  return new SwitchyardError('invalid-request', message, { path, status: 400 });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function validateChatRequest(request: unknown, limits?: Partial<RequestLimits>): asserts request is ChatRequest {
  if (!isObject(request)) throw invalid('request must be a JSON object', '(body)');
  checkRequestLimits(request, limits);
  if (typeof request.model !== 'string' || request.model.length === 0) throw invalid('model is required and must be a non-empty string', 'model');
  checkSwitchyardHints(request.switchyard);
  const messages = request.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw invalid('messages must be a non-empty array', 'messages');
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m)) throw invalid(`messages[${i}] must be an object`, `messages[${i}]`);
    if (typeof m.role !== 'string' || !ROLES.has(m.role)) throw invalid(`messages[${i}].role must be one of ${[...ROLES].join(', ')}`, `messages[${i}].role`);
    const c = m.content;
    if (c !== undefined && c !== null && typeof c !== 'string' && !Array.isArray(c)) throw invalid(`messages[${i}].content must be a string, an array of parts or null`, `messages[${i}].content`);
    if (Array.isArray(c)) {
      for (let j = 0; j < c.length; j++) {
        if (!isObject(c[j]) || typeof (c[j] as { type?: unknown }).type !== 'string') throw invalid(`messages[${i}].content[${j}] must be an object with a type`, `messages[${i}].content[${j}]`);
      }
    }
    if ((c === undefined || c === null) && m.role !== 'assistant') throw invalid(`messages[${i}].content is required for role ${m.role}`, `messages[${i}].content`);
    if (m.role === 'tool' && typeof m.tool_call_id !== 'string') throw invalid(`messages[${i}].tool_call_id is required for role tool`, `messages[${i}].tool_call_id`);
  }
  if (request.tools !== undefined) {
    if (!Array.isArray(request.tools)) throw invalid('tools must be an array', 'tools');
    request.tools.forEach((t, i) => {
      if (!isObject(t) || !isObject(t.function) || typeof t.function.name !== 'string') throw invalid(`tools[${i}].function.name is required`, `tools[${i}].function.name`);
    });
  }
  for (const field of ['temperature', 'top_p', 'max_tokens', 'max_completion_tokens'] as const) {
    const v = request[field];
    if (v !== undefined && v !== null && (typeof v !== 'number' || !Number.isFinite(v))) throw invalid(`${field} must be a number`, field);
  }
}

export function validateEmbeddingRequest(request: unknown, limits?: Partial<RequestLimits>): asserts request is EmbeddingRequest {
  if (!isObject(request)) throw invalid('request must be a JSON object', '(body)');
  checkRequestLimits(request, limits);
  if (typeof request.model !== 'string' || request.model.length === 0) throw invalid('model is required and must be a non-empty string', 'model');
  checkSwitchyardHints(request.switchyard);
  const input = request.input;
  const ok = typeof input === 'string' || (Array.isArray(input) && input.length > 0 && input.every((s) => typeof s === 'string'));
  if (!ok) throw invalid('input must be a string or a non-empty array of strings', 'input');
}
