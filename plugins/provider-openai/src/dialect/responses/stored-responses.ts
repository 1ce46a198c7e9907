/**
 * The stored-response routes: `GET /v1/responses/{id}`, `DELETE /v1/responses/{id}` and
 * `GET /v1/responses/{id}/input_items` (cursor pages, newest first by default, as OpenAI lists
 * them). Only responses created with `store: true` are there, until their TTL runs out.
 */
import { SwitchyardError } from '@switchyard/core';
import type { DialectCall, DialectContext, DialectReply } from '@switchyard/core/dialect';
import { invalid } from './decode-request.js';
import { responseStoreOf } from './decode-responses.js';
import { RESPONSE_NOT_FOUND } from './errors.js';
import { writesSettled } from './write-behind.js';
import type { StoredResponse } from './response-store.js';

function notFound(id: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `Response with id '${id}' not found.`, { code: RESPONSE_NOT_FOUND });
}

/** The id and what follows it (`resp_1/input_items`), percent-decoded. */
function target(param: string | undefined): { id: string; sub: string | undefined } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(param ?? '');
  } catch {
    throw invalid('response_id', 'the response id in the URL is not valid percent-encoding');
  }
  const slash = decoded.indexOf('/');
  return slash < 0 ? { id: decoded, sub: undefined } : { id: decoded.slice(0, slash), sub: decoded.slice(slash + 1) };
}

async function loadOrFail(context: DialectContext, id: string): Promise<StoredResponse> {
  await writesSettled(context.store);
  const record = await responseStoreOf(context).load(id);
  if (!record) throw notFound(id);
  return record;
}

function inputItemsPage(query: URLSearchParams, record: StoredResponse): Record<string, unknown> {
  const order = query.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw invalid('order', 'must be "asc" or "desc"');
  const limitText = query.get('limit');
  const limit = limitText === null ? 20 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw invalid('limit', 'must be an integer from 1 to 100');
  const items = order === 'asc' ? record.input : record.input.slice().reverse();
  const after = query.get('after');
  let start = 0;
  if (after !== null) {
    const at = items.findIndex((item) => item.id === after);
    if (at < 0) throw invalid('after', `no input item with id '${after}' in this response`);
    start = at + 1;
  }
  const data = items.slice(start, start + limit);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: start + limit < items.length };
}

export async function getStoredResponse(call: DialectCall, context: DialectContext): Promise<DialectReply> {
  const { id, sub } = target(call.params.id);
  if (sub !== undefined && sub !== 'input_items') throw notFound(`${id}/${sub}`);
  if (call.query.get('stream') === 'true') throw invalid('stream', 'a stored response cannot be streamed again; fetch it without stream');
  const record = await loadOrFail(context, id);
  return { status: 200, body: sub === 'input_items' ? inputItemsPage(call.query, record) : record.response };
}

export async function deleteStoredResponse(call: DialectCall, context: DialectContext): Promise<DialectReply> {
  const { id, sub } = target(call.params.id);
  if (sub !== undefined || !(await responseStoreOf(context).delete(id))) throw notFound(sub === undefined ? id : `${id}/${sub}`);
  return { status: 200, body: { id, object: 'response.deleted', deleted: true } };
}
