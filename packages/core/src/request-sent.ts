/**
 * When a request's body has been fully written to the vendor's socket, told by undici's own
 * diagnostics channel (`undici:request:bodySent`): undici's handler API has no such callback
 * for the dispatch handlers the transport uses. The body goes to undici as a Buffer, which
 * undici keeps as the request's `body`: that Buffer is what finds the request's callback.
 * One subscription per process; a request no callback waits for costs a WeakMap lookup.
 */
import diagnostics from 'node:diagnostics_channel';

const waiting = new WeakMap<Buffer, () => void>();
let subscribed = false;

function onBodySent(message: unknown): void {
  const body = (message as { request?: { body?: unknown } }).request?.body;
  if (!Buffer.isBuffer(body)) return;
  const sent = waiting.get(body);
  if (!sent) return;
  waiting.delete(body);
  sent();
}

/** The body to hand undici, and `sent` called once undici has written all of it. */
export function trackedBody(body: string, sent: () => void): Buffer {
  if (!subscribed) {
    diagnostics.subscribe('undici:request:bodySent', onBodySent);
    subscribed = true;
  }
  const bytes = Buffer.from(body);
  waiting.set(bytes, sent);
  return bytes;
}
