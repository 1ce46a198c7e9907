/**
 * What a unified request can carry that a Chat Completions vendor cannot take, found before any
 * attempt (core's expressible.ts skips the target, or answers a 400 naming the field when no
 * target is left): a document to a vendor without document input (OpenAI and Azure read PDFs;
 * the compatible servers and presets take none), a document of another type, media in a tool
 * result (Chat Completions tool messages are text only).
 */
import { type ChatRequest, type ContentPart, type Unsupported } from '@switchyard/core';
import { refusedPart } from '@switchyard/core/wire';

const DATA_URL_TYPE = /^data:([^;,]+)/;

function fileRefusal(part: ContentPart, path: string, providerId: string, documentTypes: ReadonlySet<string> | undefined): Unsupported | undefined {
  if (!documentTypes || documentTypes.size === 0) return { path, reason: `a document (${providerId} has no document input)` };
  const file = (part as { file?: { file_data?: unknown; file_id?: unknown } }).file;
  if (typeof file?.file_data === 'string') {
    const type = DATA_URL_TYPE.exec(file.file_data)?.[1]?.toLowerCase();
    if (!type || !documentTypes.has(type)) return { path: `${path}.file`, reason: `a ${type ?? 'non-data-URL'} document (${providerId} reads ${[...documentTypes].join(', ')} documents only)` };
    return undefined;
  }
  return typeof file?.file_id === 'string' ? undefined : { path: `${path}.file`, reason: 'a file part with neither file_data nor file_id' };
}

export function openAIFamilyUnsupported(request: ChatRequest, providerId: string, documentTypes: ReadonlySet<string> | undefined): Unsupported | undefined {
  return refusedPart(request, (part, path, { role }) => {
    if (part.type === 'text') return undefined;
    if (role === 'tool') return { path, reason: `a "${part.type}" part in a tool result (${providerId} takes text tool results only)` };
    if (part.type !== 'file') return undefined;
    return role === 'user' ? fileRefusal(part, path, providerId, documentTypes) : { path, reason: `a document in a ${role} message (${providerId} takes documents from the user only)` };
  });
}
