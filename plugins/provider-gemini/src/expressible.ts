/**
 * What a unified request can carry that Gemini cannot take, found before any attempt (core's
 * expressible.ts skips the target, or answers a 400 naming the field when no target is left):
 * a file of a type Gemini does not read inline, a file named by an upload id, media in a tool
 * result (function responses are JSON built from text), a part type it has no equivalent for.
 */
import { type ChatMessage, type ChatRequest, type ContentPart, type Unsupported } from '@switchyard/core';
import { refusedPart } from '@switchyard/core/wire';

/** What Gemini reads as inline data: documents as PDF or text, and media. */
const READABLE = /^(application\/pdf|text\/[\w.+-]+|image\/[\w.+-]+|audio\/[\w.+-]+|video\/[\w.+-]+)$/;
const DATA_URL_TYPE = /^data:([^;,]+)/;
const PART_TYPES = new Set(['text', 'image_url', 'input_audio', 'file']);

function partRefusal(part: ContentPart, path: string, { role }: ChatMessage): Unsupported | undefined {
  if (part.type === 'text') return undefined;
  if (role !== 'user') return { path, reason: `a "${part.type}" part in a ${role === 'tool' ? 'tool result' : `${role} message`} (gemini takes text only there)` };
  if (!PART_TYPES.has(part.type)) return { path, reason: `a "${part.type}" part (gemini has no such input)` };
  if (part.type !== 'file') return undefined;
  const data = (part as { file?: { file_data?: unknown } }).file?.file_data;
  if (typeof data !== 'string') return { path: `${path}.file`, reason: 'a file without inline data (gemini takes files as file_data data: URLs only)' };
  const type = DATA_URL_TYPE.exec(data)?.[1]?.toLowerCase();
  if (type && !READABLE.test(type)) return { path: `${path}.file`, reason: `a ${type} document (gemini reads PDF, text and media files only)` };
  return undefined;
}

export function geminiUnsupported(request: ChatRequest): Unsupported | undefined {
  return refusedPart(request, partRefusal);
}
