/**
 * Stream parts → Responses API SSE events (`response.created`, `response.output_item.added`,
 * `response.output_text.delta`, …, `response.completed`), with `sequence_number`s.
 *
 * Two sources, one stream. A part that carries a Responses API vendor's own event text
 * (`wireTextOf`: the `openai` provider on `/responses`) is written as it came, without a JSON
 * round trip; the encoder only reads the structural events in it (the response snapshot, items
 * added and done) to know the vendor's ids and output indexes, and never the deltas. A part
 * without text (a continuation on another vendor, a cached answer, any other vendor) is
 * encoded, into the items the vendor opened or into new ones, with sequence numbers continuing
 * after the last one forwarded. Whatever the source, the stream ends with one terminal event
 * built from what the client received: `response.completed` / `response.incomplete`, or
 * `response.failed` when the answer broke after its head.
 */
import { type FinishReason, type ProviderMetadata, type StreamInfo, type StreamPart, type Usage } from '@switchyard/core';
import { isUnreadEvents, sseEventNameAt, startsAt, wireTextOf } from '@switchyard/core/wire';
import type { GatewayErrorReply as ErrorReply, StreamEncoder } from '@switchyard/core/dialect';
import { finalResponseOf } from '../../responses-final.js';
import { TEXT_DELTA_LINE } from '../../responses-stream-decoder.js';
import { idReplacer, leadingResponseIdOf, withIdReplacedIn, withOwnIdReplaced, type VendorResponse } from './gateway-ids.js';
import { memberText } from './json-member.js';
import { newId } from './ids.js';
import { carriesState, endingOf, messageItem, reasoningItem, responseObject, responseUsage, type RequestEcho, type ResponseHead } from './response-body.js';
import { callItemOf, customCallInput, isCustomTool, type ToolNames } from './tool-names.js';
import { mergeMetadata, vendorStateItem } from './vendor-state.js';
import type { ItemStatus, Json, ResponseItem, ResponseObject } from './wire-types.js';

type ItemKind = 'message' | 'reasoning' | 'function_call' | 'other';

interface ItemState {
  kind: ItemKind;
  id: string;
  outputIndex: number;
  /** The text, reasoning or arguments received so far. */
  text: string;
  /** A message's or reasoning item's content part is open. */
  partOpen: boolean;
  /** Content parts added so far (the open one is the last). */
  parts: number;
  done: boolean;
  /** Function calls: the unified call index, its call id and name. */
  callIndex?: number;
  callId?: string;
  name?: string;
  /** The vendor's item as it was added, then as it was done (authoritative once there). */
  vendorItem?: ResponseItem;
}

const SEQUENCE_VALUE = /^\s*:\s*(\d+)/;

const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** The events that carry the response object, and so its id. */
const LIFECYCLE_EVENTS = new Set(['response.created', 'response.in_progress', 'response.queued', ...TERMINAL_EVENTS]);

export interface ResponsesStreamOptions {
  echo: RequestEcho;
  /**
   * Runs with the final response before the client sees the terminal event (the response
   * store writes it then, so a client that continues at once finds it). Failed answers are not passed.
   * `text`, when given, is the response's JSON as the client got it (the gateway's ids in it), the
   * form to keep: `response` then carries the gateway's id as its own, other fields as the vendor wrote them.
   */
  onFinal?: (response: ResponseObject, vendor?: VendorResponse, text?: string) => Promise<void>;
  /** Unified function names standing for custom and namespaced tools (tool-names.ts): their calls are written as the client's items. */
  toolNames?: ToolNames;
}

/** One SSE event. */
function event(type: string, fields: Json, sequence: number): string {
  const data = Object.assign({ type }, fields, { sequence_number: sequence });
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A final response, and its JSON text as the client got it when that could be cut out of the vendor's event. */
interface FinalResponse {
  response: ResponseObject;
  text?: string;
}

/** The `response` member's text in the first event of `text`, when that event's data is its last line and its only one. */
function responseTextOf(text: string): string | undefined {
  const end = text.indexOf('\n\n');
  const newline = text.indexOf('\ndata:');
  const line = text.startsWith('data:') ? 0 : newline < 0 ? -1 : newline + 1;
  if (end < 0 || line < 0 || line > end) return undefined;
  // Another line after it (a second data line, an `id:`): the data is not one slice of the text.
  if (text.indexOf('\n', line) < end) return undefined;
  return memberText(text, 'response', line + (text.charCodeAt(line + 5) === 32 ? 6 : 5), end);
}

/** The `data:` of one SSE event text as JSON (the core re-frames multi-line data with one prefix per line). */
function dataOf(text: string): Json | undefined {
  let data = '';
  for (const line of text.split('\n')) if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line.charAt(5) === ' ' ? 6 : 5);
  try {
    return JSON.parse(data) as Json;
  } catch {
    return undefined;
  }
}

function kindOf(type: unknown): ItemKind {
  return type === 'message' || type === 'reasoning' || type === 'function_call' ? type : 'other';
}

export class ResponsesStreamEncoder implements StreamEncoder {
  /** Made when first needed: a stream passed through whole uses the vendor's own. */
  private ownHead: ResponseHead | undefined;
  /**
   * What was forwarded and not read yet, in order: the structural events' texts and the parts.
   * A stream passed through whole never needs the ids, indexes and texts they give, so they are
   * read (the events parsed) only before the encoder writes an event itself.
   */
  private unread: (string | StreamPart)[] = [];
  /** The vendor's response snapshot (when the stream started as forwarded events): the base of our own terminal event. */
  private vendorBase: ResponseObject | undefined;
  private started = false;
  private sequence = 0;
  /** The last forwarded text: the next sequence number is read from it only when one is needed. */
  private lastForwarded: string | undefined;
  private readonly items: ItemState[] = [];
  private usage: Usage | undefined;
  private finishReason: FinishReason | undefined;
  /** Vendor state the parts carried (signatures), for the answer's last item. */
  private metadata: ProviderMetadata | undefined;
  /** The vendor's terminal event, held back until end() when the final response is kept, with its response as the core parsed it (responses-final.ts). */
  private heldTerminal: { text: string; response?: Record<string, unknown> } | undefined;
  private closed = false;
  /** The vendor's response id, and the gateway's that replaces it in every forwarded event (gateway-ids.ts). */
  private vendorId: string | undefined;
  private gatewayId: string | undefined;
  /** Puts the gateway's id where the vendor's is, once both are known. */
  private replaceIds: ((text: string) => string) | undefined;

  constructor(
    private readonly info: StreamInfo,
    private readonly options: ResponsesStreamOptions,
  ) {}

  private get head(): ResponseHead {
    this.ownHead ??= { id: newId('resp'), created_at: Math.floor(Date.now() / 1000), model: this.info.model };
    return this.ownHead;
  }

  /** Reads the structural events forwarded so far (before the encoder writes anything itself). */
  private readForwarded(): void {
    if (this.unread.length === 0) return;
    const texts = this.unread;
    this.unread = [];
    for (const one of texts) {
      if (typeof one !== 'string') {
        this.absorbPart(one);
        continue;
      }
      // One event, or a run of them forwarded undecoded.
      for (let at = 0; at < one.length; ) {
        const stop = one.indexOf('\n\n', at);
        const end = stop < 0 ? one.length : stop + 2;
        const text = at === 0 && end === one.length ? one : one.slice(at, end);
        at = end;
        const data = dataOf(text);
        const type = typeof data?.type === 'string' ? data.type : sseEventNameAt(text);
        if (data && type) this.absorbEvent(type, data);
      }
    }
  }

  encode(part: StreamPart): string {
    const wire = wireTextOf(part);
    if (wire !== undefined && isUnreadEvents(part)) {
      // Events the core forwarded undecoded (deltas, closings; never a terminal one): read only if we write an event ourselves.
      this.lastForwarded = wire;
      if (!this.closed && !this.heldTerminal) this.unread.push(wire);
      return wire;
    }
    if (wire !== undefined) {
      const out = this.forward(wire, part);
      if (!this.closed && !this.heldTerminal) this.unread.push(part);
      return out;
    }
    this.readForwarded();
    const out = this.encodePart(part);
    this.absorbPart(part);
    return out;
  }

  async end(): Promise<string> {
    if (this.closed) return '';
    this.closed = true;
    if (this.heldTerminal) {
      const held = this.heldTerminal;
      const final = this.options.onFinal && this.finalOf(held);
      if (final) await this.options.onFinal!(final.response, this.vendor(), final.text);
      return held.text;
    }
    this.readForwarded();
    const ending = endingOf(this.finishReason);
    let out = this.start();
    out += this.closeOpen(() => true, ending.status === 'completed' ? 'completed' : 'incomplete');
    out += this.stateItem();
    const final = this.snapshot(ending.status, this.output(), responseUsage(this.usage), ending.error, ending.incomplete);
    if (ending.status !== 'failed' && this.options.onFinal) await this.options.onFinal(final, this.vendor());
    const type = ending.status === 'completed' ? 'response.completed' : ending.status === 'incomplete' ? 'response.incomplete' : 'response.failed';
    return out + event(type, { response: final }, this.next());
  }

  fail(reply: ErrorReply): string {
    this.readForwarded();
    this.closed = true;
    const { code, message } = reply.body.error;
    const error = { code: code === 'rate_limit_exceeded' ? code : 'server_error', message };
    const final = this.snapshot('failed', this.output(), responseUsage(this.usage), error, null);
    return this.start() + event('response.failed', { response: final }, this.next());
  }

  /* ---------------------------------------------------------------- forwarded vendor events */

  /** The vendor's id for the stored turn: only an answer this vendor wrote whole has one worth keeping. */
  private vendor(): VendorResponse | undefined {
    return this.vendorId && !this.info.continuedOn ? { id: this.vendorId, deployment: this.info.deployment } : undefined;
  }

  /**
   * The held terminal event's response as the client gets it (with the gateway's id), and its
   * text as the client got it when the event has one `data:` line (the store keeps that text);
   * none for a failed answer.
   */
  private finalOf(held: { text: string; response?: Record<string, unknown> }): FinalResponse | undefined {
    // Parsed once already (by the core, for the decoder): only the ids are put in.
    if (held.response) {
      const text = responseTextOf(held.text);
      if (text === undefined) return { response: (this.vendorId ? withIdReplacedIn(held.response, this.vendorId, this.gatewayId!) : held.response) as unknown as ResponseObject };
      // The text is what is stored (its ids replaced already): only the object's own id is put in.
      const response = ((this.vendorId && withOwnIdReplaced(held.response, this.vendorId, this.gatewayId!)) || held.response) as unknown as ResponseObject;
      return { response, text };
    }
    const data = dataOf(held.text.slice(0, held.text.indexOf('\n\n') + 2 || undefined));
    return data?.type === 'response.failed' || !data?.response ? undefined : { response: data.response as ResponseObject };
  }

  /** `text` (events carrying the response object) with the vendor's response id replaced by the gateway's. */
  private withGatewayIds(text: string): string {
    if (this.vendorId === undefined) {
      const id = leadingResponseIdOf(text) ?? (dataOf(text.slice(0, text.indexOf('\n\n') + 2 || undefined))?.response as ResponseObject | undefined)?.id;
      if (typeof id !== 'string') return text;
      this.vendorId = id;
      this.gatewayId = newId('resp');
      this.replaceIds = idReplacer(id, this.gatewayId);
    }
    return this.replaceIds!(text);
  }

  /**
   * Writes the vendor's text (`part`'s), learning ids and indexes from its structural events; the
   * response id is the gateway's. The text is scanned as it came, and copied out only up to an
   * event whose id changed.
   */
  private forward(input: string, part: StreamPart): string {
    let written = '';
    let copiedTo = 0;
    for (let at = 0; at < input.length; ) {
      const stop = input.indexOf('\n\n', at);
      const end = stop < 0 ? input.length : stop + 2;
      // A text delta, most of a stream: nothing to rename, hold or read.
      if (startsAt(input, TEXT_DELTA_LINE, at)) {
        at = end;
        continue;
      }
      // The type from the event line; an event without one (a proxy dropped it) is read now.
      let name = sseEventNameAt(input, at, end);
      if (name === undefined) {
        const type = dataOf(input.slice(at, end))?.type;
        name = typeof type === 'string' ? type : undefined;
      }
      const original = name !== undefined && LIFECYCLE_EVENTS.has(name) ? input.slice(at, end) : undefined;
      const event = original === undefined ? undefined : this.withGatewayIds(original);
      // Deltas are most of a stream and carry nothing structural: they are never parsed.
      const terminal = name !== undefined && TERMINAL_EVENTS.has(name);
      if (terminal && this.options.onFinal) {
        // The vendor closed the stream: when the answer is kept, its last event (and anything after it) waits for end().
        const after = input.slice(end);
        const response = finalResponseOf(part);
        this.heldTerminal = { text: (event ?? input.slice(at, end)) + (after && this.replaceIds ? this.replaceIds(after) : after), ...(response ? { response } : {}) };
        this.unread.length = 0;
        written += input.slice(copiedTo, at);
        this.lastForwarded = written + this.heldTerminal.text;
        return written;
      }
      if (event !== original) {
        written += input.slice(copiedTo, at) + event!;
        copiedTo = end;
      }
      if (terminal) this.closed = true;
      else if (name === undefined || !name.endsWith('.delta')) this.unread.push(event ?? input.slice(at, end));
      at = end;
    }
    // Nothing renamed: the input itself.
    written += input.slice(copiedTo);
    this.lastForwarded = written;
    return written;
  }

  private absorbEvent(type: string, data: Json): void {
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued': {
        const response = data.response as ResponseObject | undefined;
        if (response && typeof response.id === 'string') {
          this.vendorBase = response;
          this.ownHead = { id: response.id, created_at: typeof response.created_at === 'number' ? response.created_at : Math.floor(Date.now() / 1000), model: typeof response.model === 'string' ? response.model : this.info.model };
        }
        this.started = true;
        return;
      }
      case 'response.output_item.added': {
        const item = data.item as ResponseItem | undefined;
        const index = data.output_index;
        if (!item || typeof index !== 'number') return;
        const kind = kindOf(item.type);
        const state: ItemState = { kind, id: typeof item.id === 'string' ? item.id : newId('item'), outputIndex: index, text: '', partOpen: false, parts: 0, done: false, vendorItem: item };
        if (kind === 'function_call') {
          state.callIndex = this.items.filter((i) => i.kind === 'function_call').length;
          if (typeof item.call_id === 'string') state.callId = item.call_id;
          if (typeof item.name === 'string') state.name = item.name;
        }
        this.items[index] = state;
        return;
      }
      case 'response.output_item.done': {
        const state = typeof data.output_index === 'number' ? this.items[data.output_index] : undefined;
        if (state && data.item) {
          state.done = true;
          state.partOpen = false;
          state.vendorItem = data.item as ResponseItem;
        }
        return;
      }
      case 'response.content_part.added':
      case 'response.content_part.done': {
        const state = typeof data.output_index === 'number' ? this.items[data.output_index] : undefined;
        if (!state) return;
        state.partOpen = type === 'response.content_part.added';
        if (state.partOpen) state.parts++;
        return;
      }
      case 'response.output_text.delta':
      case 'response.reasoning_text.delta':
      case 'response.reasoning_summary_text.delta':
      case 'response.function_call_arguments.delta': {
        // Forwarded undecoded by the core (a lazy pass-through, no part carries them): the text a closing written by us needs.
        const state = typeof data.output_index === 'number' ? this.items[data.output_index] : undefined;
        if (state && typeof data.delta === 'string') state.text += data.delta;
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed':
        this.closed = true;
        return;
    }
  }

  /** What a part adds to the answer, whichever way it was written: the text a closing written by us needs. */
  private absorbPart(part: StreamPart): void {
    switch (part.type) {
      case 'text-delta':
      case 'reasoning-delta': {
        const item = this.openOf(part.type === 'text-delta' ? 'message' : 'reasoning');
        if (item) item.text += part.text;
        if (part.type === 'reasoning-delta' && part.providerMetadata) this.metadata = mergeMetadata(this.metadata, part.providerMetadata);
        return;
      }
      case 'tool-call-delta': {
        if (part.providerMetadata) this.metadata = mergeMetadata(this.metadata, part.providerMetadata);
        const item = this.callItem(part.index);
        if (!item) return;
        item.text += part.argumentsDelta;
        if (part.id && !item.callId) item.callId = part.id;
        if (part.name && !item.name) item.name = part.name;
        return;
      }
      case 'usage':
        this.usage = part.usage;
        return;
      case 'finish':
        this.finishReason = part.finishReason;
        if (part.usage) this.usage = part.usage;
        if (part.providerMetadata) this.metadata = mergeMetadata(this.metadata, part.providerMetadata);
        return;
      default:
    }
  }

  /* ---------------------------------------------------------------- encoded parts */

  private encodePart(part: StreamPart): string {
    let out = '';
    if (part.type === 'response-metadata' && !this.started) {
      if (part.model) this.head.model = part.model;
      if (part.created) this.head.created_at = part.created;
    }
    out += this.start();
    switch (part.type) {
      case 'text-delta': {
        const [item, opening] = this.ensureOpen('message');
        // Built as text: the delta is most of a stream's events.
        return `${out}${opening}event: response.output_text.delta\ndata: {"type":"response.output_text.delta","item_id":${JSON.stringify(item.id)},"output_index":${item.outputIndex},"content_index":${item.parts - 1},"delta":${JSON.stringify(part.text)},"logprobs":[],"sequence_number":${this.next()}}\n\n`;
      }
      case 'reasoning-delta': {
        const [item, opening] = this.ensureOpen('reasoning');
        return `${out}${opening}${event('response.reasoning_text.delta', { item_id: item.id, output_index: item.outputIndex, content_index: item.parts - 1, delta: part.text }, this.next())}`;
      }
      case 'tool-call-delta': {
        let item = this.callItem(part.index);
        if (!item) {
          out += this.closeOpen((i) => i.kind !== 'function_call');
          item = this.addItem('function_call');
          item.callIndex = part.index;
          item.callId = part.id ?? `call_${item.id.slice(3)}`;
          item.name = part.name ?? '';
          out += event('response.output_item.added', { output_index: item.outputIndex, item: callItemOf(item.id, item.callId, item.name, '', 'in_progress', this.options.toolNames) }, this.next());
        }
        // A custom tool's input is the string inside the unified arguments: written whole when the call ends.
        if (!part.argumentsDelta || item.done || isCustomTool(item.name, this.options.toolNames)) return out;
        return out + event('response.function_call_arguments.delta', { item_id: item.id, output_index: item.outputIndex, delta: part.argumentsDelta }, this.next());
      }
      default:
        return out;
    }
  }

  /**
   * The reasoning item carrying the vendor state of an answer with reasoning or calls (see
   * vendor-state.ts); the state arrives with the finish, so it is the answer's last item. A
   * forwarded Responses stream carries its own state.
   */
  private stateItem(): string {
    if (this.vendorBase || !this.metadata) return '';
    if (!carriesState(this.items.some((i) => i.kind === 'reasoning'), this.items.some((i) => i.kind === 'function_call'), this.metadata)) return '';
    const final = vendorStateItem(this.metadata);
    const item = this.addItem('other');
    item.id = final.id;
    item.done = true;
    item.vendorItem = final;
    return event('response.output_item.added', { output_index: item.outputIndex, item: final }, this.next()) + event('response.output_item.done', { output_index: item.outputIndex, item: final }, this.next());
  }

  /** `response.created` and `response.in_progress`, once, before anything else this encoder writes. */
  private start(): string {
    if (this.started) return '';
    this.started = true;
    const snapshot = this.snapshot('in_progress', [], null);
    return event('response.created', { response: snapshot }, this.next()) + event('response.in_progress', { response: snapshot }, this.next());
  }

  /** The open item of `kind` (opening it, and closing any other, when there is none): the item and the events that opened it. */
  private ensureOpen(kind: 'message' | 'reasoning'): [ItemState, string] {
    const open = this.openOf(kind);
    if (open) {
      if (open.partOpen) return [open, ''];
      open.partOpen = true;
      return [open, this.partAdded(open)];
    }
    let out = this.closeOpen(() => true);
    const item = this.addItem(kind);
    const added = kind === 'message' ? { id: item.id, type: 'message', status: 'in_progress', content: [], role: 'assistant' } : { id: item.id, type: 'reasoning', summary: [] };
    out += event('response.output_item.added', { output_index: item.outputIndex, item: added }, this.next());
    item.partOpen = true;
    return [item, out + this.partAdded(item)];
  }

  private partAdded(item: ItemState): string {
    const part = item.kind === 'message' ? { type: 'output_text', annotations: [], logprobs: [], text: '' } : { type: 'reasoning_text', text: '' };
    return event('response.content_part.added', { item_id: item.id, output_index: item.outputIndex, content_index: item.parts++, part }, this.next());
  }

  private addItem(kind: ItemKind): ItemState {
    const prefix = kind === 'message' ? 'msg' : kind === 'reasoning' ? 'rs' : kind === 'function_call' ? 'fc' : 'item';
    const item: ItemState = { kind, id: newId(prefix), outputIndex: this.items.length, text: '', partOpen: false, parts: 0, done: false };
    this.items.push(item);
    return item;
  }

  private closeOpen(which: (item: ItemState) => boolean, status: ItemStatus = 'completed'): string {
    let out = '';
    // A vendor's output indexes may leave holes in the list.
    for (const item of this.items) if (item && !item.done && which(item)) out += this.closeItem(item, status);
    return out;
  }

  /** The done events of an item the stream left open, then the item as done. */
  private closeItem(item: ItemState, status: ItemStatus): string {
    item.done = true;
    let out = '';
    const at = { item_id: item.id, output_index: item.outputIndex, content_index: item.parts - 1 };
    if (item.kind === 'message' && item.partOpen) {
      out += event('response.output_text.done', Object.assign({}, at, { text: item.text, logprobs: [] }), this.next());
      out += event('response.content_part.done', Object.assign({}, at, { part: { type: 'output_text', annotations: [], logprobs: [], text: item.text } }), this.next());
    } else if (item.kind === 'reasoning' && item.partOpen) {
      out += event('response.reasoning_text.done', Object.assign({}, at, { text: item.text }), this.next());
      out += event('response.content_part.done', Object.assign({}, at, { part: { type: 'reasoning_text', text: item.text } }), this.next());
    } else if (item.kind === 'function_call' && isCustomTool(item.name, this.options.toolNames)) {
      const input = customCallInput(item.text);
      out += event('response.custom_tool_call_input.delta', { item_id: item.id, output_index: item.outputIndex, delta: input }, this.next());
      out += event('response.custom_tool_call_input.done', { item_id: item.id, output_index: item.outputIndex, input }, this.next());
    } else if (item.kind === 'function_call') {
      const name = this.options.toolNames?.get(item.name ?? '')?.name ?? item.name ?? '';
      out += event('response.function_call_arguments.done', { item_id: item.id, output_index: item.outputIndex, arguments: item.text, name }, this.next());
    }
    item.partOpen = false;
    const final = this.itemOf(item, status);
    item.vendorItem = final;
    return out + event('response.output_item.done', { output_index: item.outputIndex, item: final }, this.next());
  }

  /* ---------------------------------------------------------------- shared state */

  private openOf(kind: ItemKind): ItemState | undefined {
    for (let i = this.items.length - 1; i >= 0; i--) {
      const item = this.items[i];
      if (item && !item.done && item.kind === kind) return item;
    }
    return undefined;
  }

  private callItem(index: number): ItemState | undefined {
    for (const item of this.items) if (item?.kind === 'function_call' && item.callIndex === index) return item;
    return undefined;
  }

  /** An item as the terminal response reports it: the vendor's done item, or one built from what arrived. */
  private itemOf(item: ItemState, status: ItemStatus): ResponseItem {
    switch (item.kind) {
      case 'message':
        return messageItem(item.id, item.text, status);
      case 'reasoning':
        return reasoningItem(item.id, item.text, status);
      case 'function_call':
        return callItemOf(item.id, item.callId ?? '', item.name ?? '', item.text, status, this.options.toolNames);
      default:
        return item.vendorItem ?? { type: 'message', id: item.id };
    }
  }

  private output(): ResponseItem[] {
    const out: ResponseItem[] = [];
    for (const item of this.items) if (item) out.push(item.done && item.vendorItem ? item.vendorItem : this.itemOf(item, 'incomplete'));
    return out;
  }

  private snapshot(status: ResponseObject['status'], output: ResponseItem[], usage: ReturnType<typeof responseUsage>, error?: ResponseObject['error'], incomplete?: ResponseObject['incomplete_details']): ResponseObject {
    const own = responseObject(this.head, this.options.echo, { status, output, usage, error, incomplete });
    if (!this.vendorBase) return own;
    // The vendor's snapshot keeps fields we do not model; ours says how it ended.
    return Object.assign({}, this.vendorBase, { status, output, usage, error: own.error, incomplete_details: own.incomplete_details });
  }

  /** The next sequence number: after the last one forwarded, or ours. */
  private next(): number {
    if (this.lastForwarded !== undefined) {
      const at = this.lastForwarded.lastIndexOf('"sequence_number"');
      const seen = at < 0 ? undefined : SEQUENCE_VALUE.exec(this.lastForwarded.slice(at + 17, at + 40));
      if (seen && Number(seen[1]) >= this.sequence) this.sequence = Number(seen[1]) + 1;
      this.lastForwarded = undefined;
    }
    return this.sequence++;
  }
}
