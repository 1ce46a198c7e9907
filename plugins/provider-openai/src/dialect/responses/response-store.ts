/**
 * Responses kept for `previous_response_id` and `GET /v1/responses/{id}`, in the pipeline's
 * StateStore (in memory, or Redis shared by every gateway on it). One key per response holds
 * the response as the client received it and the conversation that led to it, so continuing a
 * conversation is one read whatever its length. It is held as JSON text (a `JsonText`), parsed
 * when read: most answers are stored and few are read again, and a string takes about its size
 * in memory and gives the collector nothing to trace (27,000 stored bench answers of 600 bytes
 * grew the old generation by 37 MB, keys and index included, against 44 MB as objects). A store
 * writing it out (the journal, Redis) writes the text as it is, not a string of it with every
 * quote escaped.
 * Entries expire after the configured TTL, on the pipeline's clock (and the store drops them
 * then too). A response stored by a virtual key
 * (plugin-tenants) is that key's: another key neither reads, continues nor deletes it, and learns
 * nothing more than that there is no such response.
 */
import type { Clock, StateStore } from '@switchyard/core';
import { JsonText } from '@switchyard/core/internal';
import type { VendorResponse } from './gateway-ids.js';
import { newId } from './ids.js';
import { StoredBytes, type StoreCaps } from './stored-bytes.js';
import type { ResponseItem, ResponseObject } from './wire-types.js';

export const RESPONSE_KEY_PREFIX = 'switchyard:responses:';
/** Output item id → the response that holds it, for `item_reference` input items. */
const ITEM_KEY_PREFIX = 'switchyard:responses:item:';

interface ItemIndex {
  response: string;
}

export interface StoredResponse {
  response: ResponseObject;
  /** The conversation before this response's output: the stored history, then this request's input items. */
  input: ResponseItem[];
  /** When it expires, in ms on the pipeline's clock. */
  expiresAt: number;
  /** The virtual key that stored it (the gateway's `DialectContext.owner`); absent for the config's keys. */
  owner?: string;
  /** The vendor's own id for this answer and the deployment that issued it, when a vendor of this API wrote it (gateway-ids.ts). */
  vendor?: VendorResponse;
  /** Its size as stored (JSON characters) and the slice of the TTL it is counted in (stored-bytes.ts). */
  bytes?: number;
  slice?: number;
}

/**
 * What the store held under a response's key before the record was a JsonText (written by
 * earlier releases): the `StoredResponse` as a string of JSON, beside what a lookup checks before
 * parsing it.
 * Still read, as is a record stored as an object (older still, or a JsonText a store read back
 * parsed).
 */
interface StoredEntry {
  text: string;
  expiresAt: number;
  owner?: string;
  bytes: number;
  slice: number;
}

/** Response ids as OpenAI and this gateway write them; anything else is never looked up. */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export function isResponseId(id: string): boolean {
  return ID_PATTERN.test(id);
}

const ITEM_ID_PREFIX: Record<string, string> = { message: 'msg', function_call: 'fc', function_call_output: 'fco', reasoning: 'rs' };

/** Input items as `GET …/input_items` lists them: each with an id (the client's, or one given here). */
export function withItemIds(items: readonly ResponseItem[]): ResponseItem[] {
  return items.map((item) => (typeof item.id === 'string' && item.id.length > 0 ? item : Object.assign({}, item, { id: newId(ITEM_ID_PREFIX[item.type ?? 'message'] ?? 'item') })));
}

/**
 * `JSON.stringify(record)`, its `response` written as the text given, and its size and slice
 * after it (the text's size without them), as a string of its own. The text given is cut out of
 * the vendor's event, itself cut out of the chunk it came in: V8 keeps such a slice as a view of
 * the whole chunk, and the concatenation as a list of its pieces. Kept as they are, a stored
 * answer held its chunk for the TTL: 4.9 KB a bench answer against 0.6 KB, uncounted by the caps.
 * Reading a character makes V8 copy the pieces into one string (the cheapest way it offers: 0.5
 * µs for the bench's 600 characters), which lets the chunk go.
 */
function recordText(record: StoredResponse, responseText: string | undefined, slice: number): { text: string; bytes: number } {
  let head: string;
  if (responseText === undefined) head = JSON.stringify(record).slice(0, -1);
  else {
    const { response: _written, ...rest } = record;
    head = `{"response":${responseText},${JSON.stringify(rest).slice(1, -1)}`;
  }
  // The record's text without its closing brace: its size is the record's, the two fields follow.
  const bytes = head.length + 1;
  const text = `${head},"bytes":${bytes},"slice":${slice}}`;
  text.charCodeAt(0);
  return { text, bytes };
}

export class ResponseStore {
  private readonly bytes: StoredBytes;

  constructor(
    private readonly store: StateStore,
    private readonly clock: Clock,
    private readonly ttlMs: number,
    /** Whose responses this store reads and writes. */
    private readonly owner: string | undefined,
    caps: StoreCaps,
  ) {
    this.bytes = new StoredBytes(store, clock, ttlMs, caps);
  }

  /** Before the call: a coded 429 when storing `input` would pass a cap. */
  checkRoom(input: readonly ResponseItem[]): Promise<void> {
    return this.bytes.check(this.owner, JSON.stringify(input).length);
  }

  /**
   * Stores the response, or throws the coded 429 when it would pass a cap (nothing is stored then).
   * `responseText`, when given, is `response` as JSON text (the vendor's, as the client got it):
   * it is stored as it is instead of serializing `response` again.
   */
  async save(response: ResponseObject, input: ResponseItem[], vendor?: VendorResponse, responseText?: string): Promise<void> {
    const record: StoredResponse = { response, input, expiresAt: this.clock.now() + this.ttlMs };
    if (vendor) record.vendor = vendor;
    if (this.owner !== undefined) record.owner = this.owner;
    const slice = this.bytes.slice();
    const { text, bytes } = recordText(record, responseText, slice);
    await this.bytes.add(this.owner, bytes, slice);
    // An item of this answer can be named by a later request's `item_reference` (the AI SDK's way of continuing).
    // Written together: on a journal one append and one fsync (an index whose answer was lost finds nothing).
    const items = response.output.filter((item) => typeof item.id === 'string' && isResponseId(item.id));
    await Promise.all([this.store.set(RESPONSE_KEY_PREFIX + response.id, new JsonText(text), this.ttlMs), ...items.map((item) => this.store.set(ITEM_KEY_PREFIX + item.id!, { response: response.id } satisfies ItemIndex, this.ttlMs))]);
  }

  /** The stored item with this id (of a response this owner stored), if any. */
  async item(id: string): Promise<ResponseItem | undefined> {
    if (!isResponseId(id)) return undefined;
    const index = await this.store.get<ItemIndex>(ITEM_KEY_PREFIX + id);
    const record = index && typeof index.response === 'string' ? await this.load(index.response) : undefined;
    return record?.response.output.find((item) => item.id === id) ?? record?.input.find((item) => item.id === id);
  }

  async load(id: string): Promise<StoredResponse | undefined> {
    if (!isResponseId(id)) return undefined;
    const stored = await this.store.get<JsonText | StoredEntry | StoredResponse>(RESPONSE_KEY_PREFIX + id);
    const record = stored instanceof JsonText ? parsed(stored.json) : stored && 'text' in stored ? this.fromEntry(stored) : stored;
    // The store's own expiry runs on its clock (Redis: real time); ours on the pipeline's.
    if (!record || typeof record.expiresAt !== 'number' || record.expiresAt <= this.clock.now() || record.owner !== this.owner) return undefined;
    return record;
  }

  /** A record as an earlier version stored it (its text beside what a lookup checks first). */
  private fromEntry(entry: StoredEntry): StoredResponse | undefined {
    if (typeof entry.expiresAt !== 'number' || entry.expiresAt <= this.clock.now() || entry.owner !== this.owner) return undefined;
    const record = parsed(entry.text);
    return record && Object.assign(record, { bytes: entry.bytes, slice: entry.slice });
  }

  /** True when there was a response to delete. */
  async delete(id: string): Promise<boolean> {
    const record = await this.load(id);
    if (!record) return false;
    await this.store.delete(RESPONSE_KEY_PREFIX + id);
    if (record.bytes !== undefined && record.slice !== undefined) await this.bytes.remove(this.owner, record.bytes, record.slice);
    return true;
  }
}

/** A stored record's text parsed; none for a text that does not parse (a torn write). */
function parsed(text: string): StoredResponse | undefined {
  try {
    return JSON.parse(text) as StoredResponse;
  } catch {
    return undefined;
  }
}
