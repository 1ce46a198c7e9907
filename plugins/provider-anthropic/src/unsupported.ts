/**
 * What a unified request can carry that Anthropic cannot take, found before any attempt (core's
 * expressible.ts skips this target, or answers a 400 naming the field when no target is left):
 * audio, a document of a type Anthropic does not read, a file named by an upload id instead of
 * carried inline. A request that came in the Messages dialect is sent as the client wrote it,
 * so it is Anthropic's to judge.
 */
import { type ChatRequest, type ContentPart, type Unsupported } from '@switchyard/core';
import { refusedPart } from '@switchyard/core/wire';
import { DOCUMENT_MEDIA_TYPES, inlineFileOf } from './documents.js';
import { messagesOrigin } from './pass-through.js';

function partRefusal(part: ContentPart, path: string): Unsupported | undefined {
  switch (part.type) {
    case 'text':
    case 'image_url':
      return undefined;
    case 'file': {
      const file = inlineFileOf(part);
      if (!file) return { path: `${path}.file`, reason: 'a file part without inline base64 data (anthropic takes documents inline only)' };
      if (!DOCUMENT_MEDIA_TYPES.has(file.mediaType)) return { path: `${path}.file`, reason: `a ${file.mediaType} document (anthropic reads ${[...DOCUMENT_MEDIA_TYPES].join(' and ')} documents only)` };
      return undefined;
    }
    default:
      return { path, reason: `a "${part.type}" part (anthropic has no such input)` };
  }
}

export function anthropicUnsupported(request: ChatRequest): Unsupported | undefined {
  return messagesOrigin(request) ? undefined : refusedPart(request, partRefusal);
}
