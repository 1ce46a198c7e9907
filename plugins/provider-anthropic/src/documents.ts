/**
 * Unified file parts (OpenAI Chat's `{type:'file', file:{file_data:'data:<mime>;base64,…',
 * filename?}}`) → Anthropic document blocks. Anthropic reads PDFs and plain text; a file part of
 * any other type, or one that names an uploaded file instead of carrying its data, has no
 * equivalent (see unsupported.ts, which refuses it before any attempt).
 */
import type { ContentPart } from '@switchyard/core';
import type { DocumentBlock } from './wire-types.js';

/** The document types Anthropic reads inline. */
export const DOCUMENT_MEDIA_TYPES: ReadonlySet<string> = new Set(['application/pdf', 'text/plain']);

const BASE64_DATA_URL = /^data:([^;,]+)[^,]*;base64,(.*)$/s;

export interface FileData {
  mediaType: string;
  base64: string;
}

/** The media type and data of a base64 `data:` URL, or undefined when it is not one. */
export function base64DataUrl(url: string): FileData | undefined {
  const match = BASE64_DATA_URL.exec(url);
  return match ? { mediaType: match[1]!.toLowerCase(), base64: match[2]! } : undefined;
}

/** The part's file data when it carries some inline (`file.file_data`). */
export function inlineFileOf(part: ContentPart): (FileData & { filename?: string }) | undefined {
  const file = (part as { file?: unknown }).file as { file_data?: unknown; filename?: unknown } | undefined;
  if (typeof file?.file_data !== 'string') return undefined;
  const data = base64DataUrl(file.file_data);
  if (!data) return undefined;
  return typeof file.filename === 'string' && file.filename.length > 0 ? { ...data, filename: file.filename } : data;
}

export function documentBlock(file: FileData & { filename?: string }): DocumentBlock {
  const source: DocumentBlock['source'] =
    file.mediaType === 'text/plain' ? { type: 'text', media_type: 'text/plain', data: Buffer.from(file.base64, 'base64').toString('utf8') } : { type: 'base64', media_type: file.mediaType, data: file.base64 };
  return file.filename ? { type: 'document', source, title: file.filename } : { type: 'document', source };
}
