/**
 * When a request's body has been fully written to the vendor's socket, told by undici's own
 * diagnostics channels: undici's handler API has no such callback for the dispatch handlers the
 * transport uses. The body goes to undici as a Buffer, which undici keeps as the request's
 * `body`: that Buffer is what finds the request's callback.
 *
 * undici reports `bodySent` as soon as it handed the Buffer to `socket.write`, which buffers in
 * the process whatever the kernel did not take yet (a vendor that stopped reading leaves all of a
 * large body there). So the socket seen at `sendHeaders` is watched too: while it still holds
 * unwritten bytes, the body counts as written only at its `drain`; a socket closed before
 * then never wrote it. One subscription per process; a request no callback waits for costs a
 * property read.
 *
 * The callback and the socket ride on the Buffer itself (this module made it), not in WeakMaps:
 * a WeakMap entry per request is churn in a table V8's scavenger walks, and its value (the
 * callback, which holds the attempt) stays alive as long as the entry does (hidden-slot.ts).
 */
import diagnostics from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

const SENT = Symbol('switchyard.requestSent');
const SOCKET = Symbol('switchyard.requestSocket');

/** A body this module handed to undici: the callback waiting for it, and the socket it goes out on. */
interface TrackedBody extends Buffer {
  [SENT]?: () => void;
  [SOCKET]?: Socket;
}

let subscribed = false;

function bodyOf(message: unknown): TrackedBody | undefined {
  const body = (message as { request?: { body?: unknown } }).request?.body;
  return Buffer.isBuffer(body) ? body : undefined;
}

function onSendHeaders(message: unknown): void {
  const body = bodyOf(message);
  if (!body?.[SENT]) return;
  const socket = (message as { socket?: Socket }).socket;
  if (socket) body[SOCKET] = socket;
}

function onBodySent(message: unknown): void {
  const body = bodyOf(message);
  const sent = body?.[SENT];
  if (!sent) return;
  const socket = body[SOCKET];
  body[SENT] = undefined;
  body[SOCKET] = undefined;
  if (!socket || !socket.writableNeedDrain) return sent();
  const settle = (drained: boolean) => {
    socket.off('drain', onDrain);
    socket.off('close', onClose);
    if (drained) sent();
  };
  const onDrain = () => settle(true);
  const onClose = () => settle(false);
  socket.on('drain', onDrain);
  socket.on('close', onClose);
}

/**
 * The body to hand undici, and `sent` called once all of it has left the process for the vendor.
 * Bytes are wrapped, not copied: the callback rides on a Buffer of this request's own.
 */
export function trackedBody(body: string | Uint8Array, sent: () => void): Buffer {
  if (!subscribed) {
    diagnostics.subscribe('undici:client:sendHeaders', onSendHeaders);
    diagnostics.subscribe('undici:request:bodySent', onBodySent);
    subscribed = true;
  }
  const bytes: TrackedBody = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  // Both slots made at once, so every tracked body has one shape.
  bytes[SENT] = sent;
  bytes[SOCKET] = undefined;
  return bytes;
}
