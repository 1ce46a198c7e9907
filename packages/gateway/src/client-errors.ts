/**
 * Node answers malformed requests itself (bad request line or headers: 400, headers too large:
 * 431, headers too slow: 408) with an empty body. OpenAI clients expect `{"error":{…}}`, so the
 * gateway writes those answers itself, in the same shape as every other error.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorReply } from './openai-errors.js';

const ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'the request headers are too large', 'headers_too_large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request did not arrive in time', 'request_timeout'],
  ERR_HTTP_HEADERS_TIMEOUT: [408, 'the request headers did not arrive in time', 'request_timeout'],
};

export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message, code] = ANSWERS[error.code ?? ''] ?? [400, 'the request is not valid HTTP', 'bad_http_request'];
  const body = JSON.stringify(errorReply(status, message, 'invalid_request_error', code).body);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
