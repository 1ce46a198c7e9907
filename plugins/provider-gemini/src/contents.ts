/** Unified messages → Gemini `contents` and `systemInstruction`. */
import type { ChatMessage, ContentPart } from '@switchyard/core';
import { unsupported } from './unsupported.js';
import { toGeminiPart } from './media.js';
import { geminiMetadata, signatureForCall, SKIP_SIGNATURE_VALIDATION } from './thought-signatures.js';
import type { GeminiContent, GeminiPart } from './wire-types.js';

export interface ContentsOptions {
  /** Send Google's placeholder signature on foreign function calls (default true). */
  fillMissingSignatures: boolean;
}

export interface GeminiConversation {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
}

function textOf(content: ChatMessage['content'], path: string): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (part.type !== 'text') throw unsupported(`only text parts are allowed here, got "${part.type}"`, `${path}[${j}]`);
      return String((part as { text?: unknown }).text ?? '');
    })
    .join('');
}

function userParts(content: ChatMessage['content'], path: string): GeminiPart[] {
  if (typeof content === 'string') return [{ text: content }];
  return (content ?? []).map((part: ContentPart, j) => toGeminiPart(part, `${path}[${j}]`));
}

function parseArguments(text: string, path: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw unsupported('is not valid JSON', path);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unsupported('must be a JSON object', path);
  return value as Record<string, unknown>;
}

/** Gemini wants an object; a tool's JSON object output is kept as is, anything else is wrapped. */
function toolResponse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // Plain text output.
  }
  return { result: text };
}

function modelParts(message: ChatMessage, path: string, options: ContentsOptions): GeminiPart[] {
  const parts: GeminiPart[] = [];
  const text = textOf(message.content, `${path}.content`);
  if (text.length > 0) parts.push({ text });
  const calls = message.tool_calls ?? [];
  const callParts: GeminiPart[] = calls.map((call, k) => {
    const part: GeminiPart = { functionCall: { name: call.function.name, args: parseArguments(call.function.arguments ?? '', `${path}.tool_calls[${k}].function.arguments`) } };
    const signature = signatureForCall(message, call, k);
    if (signature) part.thoughtSignature = signature;
    return part;
  });
  if (callParts.length > 0 && options.fillMissingSignatures && !callParts.some((p) => p.thoughtSignature)) {
    callParts[0].thoughtSignature = SKIP_SIGNATURE_VALIDATION;
  }
  const textSignature = geminiMetadata(message.providerMetadata).thoughtSignature;
  if (callParts.length === 0 && textSignature && parts.length > 0) parts[parts.length - 1].thoughtSignature = textSignature;
  return [...parts, ...callParts];
}

export function toGeminiConversation(messages: readonly ChatMessage[], options: ContentsOptions): GeminiConversation {
  const contents: GeminiContent[] = [];
  const system: GeminiPart[] = [];
  const callNames = new Map<string, string>();
  let toolTurn: GeminiContent | undefined;

  messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (message.role !== 'tool') toolTurn = undefined;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content, `${path}.content`);
        if (text.length > 0) system.push({ text });
        return;
      }
      case 'user':
        contents.push({ role: 'user', parts: userParts(message.content, `${path}.content`) });
        return;
      case 'assistant': {
        for (const call of message.tool_calls ?? []) callNames.set(call.id, call.function.name);
        const parts = modelParts(message, path, options);
        if (parts.length > 0) contents.push({ role: 'model', parts });
        return;
      }
      case 'tool': {
        const name = callNames.get(message.tool_call_id ?? '');
        if (!name) throw unsupported(`no earlier assistant tool call has id "${message.tool_call_id}"`, `${path}.tool_call_id`);
        const part: GeminiPart = { functionResponse: { name, response: toolResponse(textOf(message.content, `${path}.content`)) } };
        // All results of one model turn go back together in a single user turn.
        if (toolTurn) toolTurn.parts.push(part);
        else {
          toolTurn = { role: 'user', parts: [part] };
          contents.push(toolTurn);
        }
        return;
      }
      default:
        throw unsupported(`role "${String(message.role)}" is not supported`, `${path}.role`);
    }
  });
  return system.length > 0 ? { contents, systemInstruction: { parts: system } } : { contents };
}
