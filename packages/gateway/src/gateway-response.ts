/**
 * The gateway's `ServerResponse`: every head it writes carries the request's `x-request-id`,
 * whichever path answers (a stream, an error, `/health`, an admin route, a reply Node writes
 * implicitly at `end()`).
 *
 * Why not `res.setHeader('x-request-id', …)` as a request starts: a header set before
 * `writeHead(status, headers)` sends Node down its slow path, which runs `setHeader` again for
 * each of the answer's headers (its checks, lower-casing and store) before writing the head
 * from that store. Added to the head's own headers instead, it is checked once with them as the
 * head is written: about 3 µs of a served stream's CPU in a profile of `switchyard serve`.
 */
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders } from 'node:http';

const REQUEST_ID = 'x-request-id';

type HeadFields = OutgoingHttpHeaders | OutgoingHttpHeader[];

export class GatewayResponse<Request extends IncomingMessage = IncomingMessage> extends ServerResponse<Request> {
  /** Sent as `x-request-id` in the head; unset, the head is written as given. */
  requestId: string | undefined;

  override writeHead(statusCode: number, statusMessage?: string, headers?: HeadFields): this;
  override writeHead(statusCode: number, headers?: HeadFields): this;
  override writeHead(statusCode: number, messageOrHeaders?: string | HeadFields, headers?: HeadFields): this {
    const message = typeof messageOrHeaders === 'string' ? messageOrHeaders : undefined;
    const fields = typeof messageOrHeaders === 'string' ? headers : messageOrHeaders;
    return super.writeHead(statusCode, message, withRequestId(this, fields));
  }
}

/** `fields` with the request id in front, or the id set on the response when the head has no fields of its own. */
function withRequestId(res: GatewayResponse, fields: HeadFields | undefined): HeadFields | undefined {
  const id = res.requestId;
  // Set on the response already (a caller's choice, or a head written twice): it wins, as before.
  if (id === undefined || res.hasHeader(REQUEST_ID)) return fields;
  if (fields === undefined) {
    res.setHeader(REQUEST_ID, id);
    return undefined;
  }
  // The head's own id (a vendor's, passed on with an error), however spelled, is the one sent.
  if (Array.isArray(fields)) return fields.some((field, i) => i % 2 === 0 && isRequestId(String(field))) ? fields : [REQUEST_ID, id, ...fields];
  for (const name in fields) if (isRequestId(name)) return fields;
  return { [REQUEST_ID]: id, ...fields };
}

function isRequestId(name: string): boolean {
  return name.length === REQUEST_ID.length && name.toLowerCase() === REQUEST_ID;
}
