/**
 * Decoding `POST /v1/responses`. The body is decoded into the unified request (any vendor can
 * answer it) and kept as the request's origin (the `openai` provider sends it on to `/responses`
 * as it came). With `previous_response_id`, the stored conversation is expanded into the request
 * before routing, and `item_reference` items naming stored items are replaced by them. `store`
 * is true unless the client says false, as in OpenAI's API: asked for, the answer is stored
 * before the client sees its end (a client that continues at once finds it); defaulted, it is
 * written after the answer ended, batched (write-behind.ts), and only within the store's caps.
 */
import { SwitchyardError, type ChatResponse } from '@switchyard/core';
import { checkRequestLimits, DEFAULT_REQUEST_LIMITS, formatDuration } from '@switchyard/core/internal';
import { OPENAI_RESPONSES, setRequestOrigin, wireBodyOf, wireJsonOf } from '@switchyard/core/wire';
import type { DecodedRequest, DialectCall, DialectContext } from '@switchyard/core/dialect';
import { wantsStream } from '../stream-flag.js';
import { decodeRequest, inputItems, invalid, isObject, type SourcedItem } from './decode-request.js';
import { withGatewayId, withOwnIdReplaced, type VendorResponse } from './gateway-ids.js';
import { CONVERSATION_TOO_LARGE, PREVIOUS_RESPONSE_NOT_FOUND } from './errors.js';
import { requestEcho, type RequestEcho } from './response-body.js';
import { ResponseStore, withItemIds } from './response-store.js';
import { statelessItems } from './vendor-state.js';
import { warnNotStored } from './store-warnings.js';
import { writeBehind, writesSettled } from './write-behind.js';
import type { ToolNames } from './tool-names.js';
import type { Json, ResponseItem, ResponseObject } from './wire-types.js';

export function responseStoreOf(context: DialectContext): ResponseStore {
  return new ResponseStore(context.store, context.clock, context.storeTtlMs, context.owner, context.storeCaps);
}

export interface DecodedResponses extends DecodedRequest {
  readonly echo: RequestEcho;
  /** Unified function names that stand for custom and namespaced tools: their calls go back as the client's items. */
  readonly toolNames?: ToolNames;
  /** Stores the final response (`store: true`) before the client sees its end, with the vendor's own id when a vendor of this API wrote it. */
  readonly keep?: (response: ResponseObject, vendor?: VendorResponse) => Promise<void>;
}

/**
 * The stored conversation as input for a vendor that keeps no state (the gateway asks OpenAI
 * with `store: false`): without the reasoning items it could not take back, and without the
 * ids of the others, which it would look up and not find. Reasoning items keep theirs (their
 * encrypted content is what OpenAI reads).
 */
export function statelessHistory(items: ResponseItem[]): ResponseItem[] {
  return statelessItems(items).map((item) => {
    if (item.type === 'reasoning' || item.id === undefined) return item;
    const { id: _id, ...rest } = item;
    return rest as ResponseItem;
  });
}

/** `store` as OpenAI defines it: true unless the client says false. */
function storeFlag(body: Json): { store: boolean; explicit: boolean } {
  const value = body.store;
  if (value === undefined || value === null) return { store: true, explicit: false };
  if (typeof value !== 'boolean') throw invalid('store', 'must be a boolean');
  return { store: value, explicit: true };
}

/** `item_reference` items naming an item the gateway stored, replaced by that item; the others stay (only OpenAI may know them). */
async function resolveReferences(input: ResponseItem[], responses: ResponseStore): Promise<ResponseItem[]> {
  if (!input.some((item) => item.type === 'item_reference')) return input;
  return Promise.all(input.map(async (item) => (item.type === 'item_reference' && typeof item.id === 'string' ? ((await responses.item(item.id)) ?? item) : item)));
}

export async function decodeResponsesRequest({ body, bodyText, bodyBytes }: DialectCall, context: DialectContext): Promise<DecodedResponses> {
  if (!isObject(body)) throw invalid('(body)', 'must be a JSON object');
  const stream = wantsStream(body);
  const { store, explicit } = storeFlag(body);
  const previousId = body.previous_response_id;
  if (previousId !== undefined && previousId !== null && (typeof previousId !== 'string' || previousId.length === 0)) throw invalid('previous_response_id', 'must be a response id');
  if (previousId && body.conversation !== undefined && body.conversation !== null) throw invalid('conversation', 'cannot be used together with previous_response_id');
  const responses = responseStoreOf(context);
  const items = inputItems(body);
  // A turn that names stored state waits for this gateway's own pending writes (see write-behind.ts).
  if (previousId || items.some((item) => item.type === 'item_reference')) await writesSettled(context.store);
  let history: ResponseItem[] = [];
  if (previousId) {
    const record = await responses.load(previousId);
    if (!record) {
      throw new SwitchyardError('invalid-request', `Previous response with id '${previousId}' not found (unknown, expired after ${formatDuration(context.storeTtlMs)}, deleted, or stored without store: true).`, {
        code: PREVIOUS_RESPONSE_NOT_FOUND,
        path: 'previous_response_id',
      });
    }
    history = record.input.concat(record.response.output);
    // A tiny request must not send a huge stored conversation upstream again and again.
    const size = record.bytes ?? JSON.stringify(history).length;
    const most = context.storeCaps.maxConversationBytes;
    if (size > most) throw new SwitchyardError('invalid-request', `the conversation stored under previous_response_id '${previousId}' is ${size} bytes; the limit is ${most} (server.responseStore.maxConversationBytes): start a new conversation, or send a shortened history as input`, { code: CONVERSATION_TOO_LARGE, path: 'previous_response_id', status: 400 });
  }
  const input = await resolveReferences(items, responses);
  const conversation: SourcedItem[] = [];
  for (const item of history) conversation.push({ item, path: 'previous_response_id' });
  for (let i = 0; i < input.length; i++) conversation.push({ item: input[i]!, path: `input[${i}]` });
  const maxItems = context.limits?.maxMessages ?? DEFAULT_REQUEST_LIMITS.maxMessages;
  if (conversation.length > maxItems) throw invalid('input', `the conversation has ${conversation.length} items (${history.length} stored, ${input.length} in input); the limit is ${maxItems}`);
  const { request, hints, capabilities, toolNames } = decodeRequest(body, conversation);
  // Checked here with the gateway's limits, so the pipeline does not check it again with its defaults.
  checkRequestLimits(request, context.limits);
  // Resolved references go upstream as the stored conversation does (without our ids and state items).
  const upstreamInput = previousId ? statelessHistory(history).concat(statelessItems(input)) : input !== items ? statelessHistory(input) : statelessItems(input);
  const origin = upstreamInput === items ? body : Object.assign({}, body, { input: upstreamInput });
  // The client's text goes with a body it still is (no stored conversation or resolved reference put into it).
  const text = origin === body && bodyText !== undefined ? { text: bodyText, bytes: bodyBytes } : {};
  setRequestOrigin(request, { format: OPENAI_RESPONSES, body: origin, ...text, ...(capabilities.length > 0 ? { untranslatable: capabilities } : {}), ...(hints.length > 0 ? { hints } : {}) });

  // Refused before the vendor is paid: an answer the client asked to store that could not be.
  if (explicit && store) await responses.checkRoom(history.concat(input));
  const save = async (response: ResponseObject, vendor?: VendorResponse, text?: string) => {
    try {
      await responses.save(response, withItemIds(history.concat(input)), vendor, text);
    } catch (error) {
      // The answer still reaches the client; only continuing from it will not work.
      warnNotStored(context, error);
    }
  };
  // Asked for: stored before the client sees the end. Defaulted (OpenAI's `store: true`): written after, batched, within the store's caps.
  const keep = !store ? undefined : explicit ? save : async (response: ResponseObject, vendor?: VendorResponse, text?: string) => writeBehind(context.store, () => save(response, vendor, text), () => undefined);
  // A vendor's answer passed through gets the gateway's id (gateway-ids.ts); ours already has one.
  const settle = async (text: string, answer?: ChatResponse): Promise<string> => {
    const deployment = answer?.switchyard?.deployment;
    const passed = deployment && wireBodyOf(answer, OPENAI_RESPONSES) === text ? withGatewayId(text) : { text };
    if (!keep) return passed.text;
    // The vendor's object as its provider parsed it, its own id the gateway's (the text is what is stored); else the text parsed.
    const vendorObject = passed.vendorId === undefined ? undefined : (wireJsonOf(answer!, OPENAI_RESPONSES) as ResponseObject | undefined);
    const final = (vendorObject && withOwnIdReplaced(vendorObject, passed.vendorId!, passed.id!)) ?? (JSON.parse(passed.text) as ResponseObject);
    // Stored as the text the client gets, not serialized again.
    if (final.status !== 'failed') await keep(final, passed.vendorId && deployment ? { id: passed.vendorId, deployment } : undefined, passed.text);
    return passed.text;
  };
  return { request, stream, hints, capabilities, echo: requestEcho(body, store), toolNames: toolNames.size > 0 ? toolNames : undefined, keep, settle };
}
