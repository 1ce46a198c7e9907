/** User content parts (text, images, audio, files) → Gemini parts. */
import type { ContentPart } from '@switchyard/core';
import { unsupported } from './unsupported.js';
import type { GeminiPart } from './wire-types.js';

const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
};

const DATA_URL = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/s;

function inlineFromDataUrl(url: string, path: string): GeminiPart {
  const m = DATA_URL.exec(url);
  if (!m) throw unsupported('is not a valid data: URL (expected data:<mime>;base64,<data>)', path);
  const isBase64 = m[2].split(';').includes('base64');
  const data = isBase64 ? m[3] : Buffer.from(decodeURIComponent(m[3]), 'utf8').toString('base64');
  return { inlineData: { mimeType: m[1], data } };
}

/** Gemini needs a MIME type for a remote file, so it is guessed from the URL's extension. */
function fileFromUrl(url: string, path: string): GeminiPart {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    throw unsupported('is not a valid URL', path);
  }
  const extension = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase();
  const mimeType = extension ? MIME_BY_EXTENSION[extension] : undefined;
  if (!mimeType) {
    throw unsupported(`the media type of this URL cannot be told from its name; Gemini needs one: send the image as a data: URL or use a URL ending in ${Object.keys(MIME_BY_EXTENSION).map((e) => `.${e}`).join(', ')}`, path);
  }
  return { fileData: { mimeType, fileUri: url } };
}

function mediaFromUrl(url: unknown, path: string): GeminiPart {
  if (typeof url !== 'string' || url.length === 0) throw unsupported('must be a non-empty string', path);
  if (url.startsWith('data:')) return inlineFromDataUrl(url, path);
  if (/^https?:\/\//i.test(url)) return fileFromUrl(url, path);
  throw unsupported('must be a data: URL or an http(s) URL', path);
}

export function toGeminiPart(part: ContentPart, path: string): GeminiPart {
  const p = part as Record<string, unknown>;
  switch (part.type) {
    case 'text':
      return { text: String(p.text ?? '') };
    case 'image_url': {
      const image = p.image_url as { url?: unknown } | undefined;
      return mediaFromUrl(image?.url, `${path}.image_url.url`);
    }
    case 'input_audio': {
      const audio = p.input_audio as { data?: unknown; format?: unknown } | undefined;
      if (typeof audio?.data !== 'string') throw unsupported('must carry base64 data', `${path}.input_audio.data`);
      return { inlineData: { mimeType: audio.format === 'mp3' ? 'audio/mp3' : 'audio/wav', data: audio.data } };
    }
    case 'file': {
      const file = p.file as { file_data?: unknown } | undefined;
      if (typeof file?.file_data !== 'string') throw unsupported('Gemini takes files inline only: set file.file_data to a data: URL', `${path}.file`);
      return mediaFromUrl(file.file_data, `${path}.file.file_data`);
    }
    default:
      throw unsupported(`content part type "${part.type}" is not supported by the Gemini provider`, `${path}.type`);
  }
}
