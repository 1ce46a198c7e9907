/**
 * Chat Completions chunks → unified stream parts, for OpenAI and every compatible vendor:
 * Azure's empty first chunk, DeepSeek/Ollama reasoning fields, tool calls by `index` (whole
 * calls in one delta on Groq and Ollama), usage on the finish chunk or in a trailing
 * `choices: []` chunk, and errors inside a 200 stream.
 */
import { SwitchyardError, type ProviderMetadata, type StreamDecoder, type StreamPart } from '@switchyard/core';
import { KeyScan, OPENAI_CHAT_COMPLETION, startsAt, type DecodedSseEvent } from '@switchyard/core/wire';
import { type ErrorRule } from '@switchyard/core/internal';
import { classifyStreamError } from './classify-error.js';
import { INSUFFICIENT_RESOURCE, mapFinishReason } from './finish-reason.js';
import { reasoningOf, syntheticToolCallId, usageMetadata } from './response.js';
import { normalizeUsage } from './usage.js';
import { asWireBody, vendorExtras, type WireBody, type WireChoice, type WireToolCall } from './wire-types.js';

export class ChatStreamDecoder implements StreamDecoder {
  /** Chunks this decoder did not have to normalise go to a Chat Completions client as they came. */
  readonly wireFormat = OPENAI_CHAT_COMPLETION;
  private responseId = '';
  /** Whether the chunk just pushed is what the gateway's encoder would write for its parts. */
  private lastForwardable = false;
  /** Where the chunk's next event to read after the commit point is (readAfterCommitIn). */
  private readonly keys = new KeyScan(READ_AFTER_COMMIT);
  private metadataSent = false;
  private finished = false;
  /** Extras seen before the first chunk with an id (Azure's prompt_filter_results). */
  private pendingExtras: Record<string, unknown> = {};
  /** Vendor tool-call index → our index, in order of first appearance. */
  private readonly toolIndexes = new Map<number, number>();
  private toolCount = 0;
  private refusal = '';

  constructor(
    private readonly providerId: string,
    private readonly apiKey?: string,
    private readonly errorRules?: readonly ErrorRule[],
  ) {}

  push(event: DecodedSseEvent): StreamPart[] {
    const body = asWireBody(event.json);
    this.lastForwardable = false;
    if (event.event === 'error') return [{ type: 'error', error: classifyStreamError(this.providerId, event.json, this.apiKey, this.errorRules) }];
    if (!body) return [];
    this.lastForwardable = event.event === undefined && standardChunk(body, this.toolIndexes);
    const parts: StreamPart[] = [];
    this.readMetadata(body, parts);
    const choice = Array.isArray(body.choices) ? firstChoice(body.choices) : undefined;
    if (choice) this.readChoice(choice, body, parts);
    else if (body.usage) this.pushUsage(body, parts);
    // OpenRouter puts the error on a chunk that also has choices and usage: the usage is kept above.
    if (body.error !== undefined) parts.push({ type: 'error', error: classifyStreamError(this.providerId, event.json, this.apiKey, this.errorRules) });
    return parts;
  }

  end(): StreamPart[] {
    return [];
  }

  forwardable(): boolean {
    return this.lastForwardable;
  }

  /**
   * After the commit point a Chat Completions client needs decoded only the chunks that finish
   * the answer, carry usage or an error, or that this decoder would not forward as they came
   * (tool calls, whose numbering it checks; fields it renames or reads: `reasoning`, `x_groq`).
   * The rest (a content delta) is forwarded unread. A stream gets here only when its committed
   * chunk was a standard one (`forwardable`): a vendor that writes standard chunks keeps doing so.
   */
  readAfterCommit(eventText: string): boolean {
    return this.readAfterCommitIn(eventText, 0, eventText.length);
  }

  readAfterCommitIn(text: string, start: number, end: number): boolean {
    if (!startsAt(text, 'data:', start)) return true; // a named event (`event: error`), or a field we do not expect
    return this.keys.within(text, start, end);
  }

  private meta(values: Record<string, unknown>): ProviderMetadata {
    return { [this.providerId]: values };
  }

  private readMetadata(body: WireBody, parts: StreamPart[]): void {
    if (this.metadataSent) return;
    const id = typeof body.id === 'string' ? body.id : '';
    const model = typeof body.model === 'string' ? body.model : '';
    const extras = { ...this.pendingExtras, ...vendorExtras(body) };
    // Azure's first chunk has id "", model "" and created 0: remember its extras, report nothing yet.
    if (!id && !model) {
      this.pendingExtras = extras;
      return;
    }
    this.metadataSent = true;
    this.responseId = id;
    parts.push({
      type: 'response-metadata',
      ...(id ? { id } : {}),
      ...(model ? { model } : {}),
      ...(typeof body.created === 'number' && body.created > 0 ? { created: body.created } : {}),
      ...(Object.keys(extras).length > 0 ? { providerMetadata: this.meta(extras) } : {}),
    });
  }

  private readChoice(choice: WireChoice, body: WireBody, parts: StreamPart[]): void {
    const delta = choice.delta ?? {};
    const reasoning = reasoningOf(delta);
    if (reasoning) parts.push({ type: 'reasoning-delta', text: reasoning });
    if (typeof delta.content === 'string' && delta.content.length > 0) parts.push({ type: 'text-delta', text: delta.content });
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.readToolCall(call, parts);
    const raw = choice.finish_reason;
    if (typeof raw !== 'string' || raw.length === 0) {
      if (body.usage) this.pushUsage(body, parts);
      return;
    }
    if (raw === INSUFFICIENT_RESOURCE) {
      parts.push({
        type: 'error',
        error: new SwitchyardError('overloaded', `${this.providerId} stopped the answer: ${INSUFFICIENT_RESOURCE}`, { vendorCode: INSUFFICIENT_RESOURCE, provider: this.providerId, retryable: true }),
      });
      return;
    }
    if (this.finished) {
      // Repeated finish chunks (OpenRouter) only add usage.
      if (body.usage) this.pushUsage(body, parts);
      return;
    }
    this.finished = true;
    const finishReason = mapFinishReason(raw);
    const usage = normalizeUsage(body.usage ?? body.x_groq?.usage);
    const meta: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(choice)) {
      if (!['index', 'delta', 'finish_reason', 'logprobs'].includes(key) && value !== null && value !== undefined) meta[key] = value;
    }
    if (body.x_groq) meta.x_groq = body.x_groq;
    const usageExtras = usageMetadata(body.usage);
    if (usageExtras) meta.usage = usageExtras;
    if (this.refusal) meta.refusal = this.refusal;
    parts.push({
      type: 'finish',
      finishReason,
      ...(finishReason !== raw ? { rawFinishReason: raw } : {}),
      ...(usage ? { usage } : {}),
      ...(Object.keys(meta).length > 0 ? { providerMetadata: this.meta(meta) } : {}),
    });
  }

  private readToolCall(call: WireToolCall, parts: StreamPart[]): void {
    const { index, isNew } = this.toolSlot(call);
    const args = call.function?.arguments ?? '';
    const id = call.id || (isNew ? syntheticToolCallId(this.responseId, index) : undefined);
    const name = call.function?.name || undefined;
    if (!id && !name && !args) return;
    parts.push({ type: 'tool-call-delta', index, ...(id ? { id } : {}), ...(name ? { name } : {}), argumentsDelta: args });
  }

  /**
   * Our index for a vendor tool call. Vendors number calls by `index`; a few compatible servers
   * leave it out, so a delta with an id starts the next call and one without continues the last.
   */
  private toolSlot(call: WireToolCall): { index: number; isNew: boolean } {
    if (typeof call.index === 'number') {
      const known = this.toolIndexes.get(call.index);
      if (known !== undefined) return { index: known, isNew: false };
      this.toolIndexes.set(call.index, this.toolCount);
      return { index: this.toolCount++, isNew: true };
    }
    if (call.id || this.toolCount === 0) return { index: this.toolCount++, isNew: true };
    return { index: this.toolCount - 1, isNew: false };
  }

  private pushUsage(body: WireBody, parts: StreamPart[]): void {
    const usage = normalizeUsage(body.usage);
    if (usage) parts.push({ type: 'usage', usage });
  }
}

/**
 * A chunk read after the commit point: `finish_reason` or `usage` with a value other than null,
 * or an error, tool calls, reasoning or Groq's extras. One regular expression is one pass over
 * the chunk (six `indexOf` scans were the gateway's largest item per streamed answer). A key's two
 * quotes are never both bare inside a JSON string, so content cannot fake one.
 */
const READ_AFTER_COMMIT = /"(?:finish_reason|usage)"[\t\n\r :]*[^\t\n\r :n]|"(?:error|tool_calls|reasoning|x_groq)"/;

/** The choice with index 0 (vendors that leave `index` out mean 0). */
function firstChoice(choices: (WireChoice | null | undefined)[]): WireChoice | undefined {
  for (const c of choices) if ((c?.index ?? 0) === 0) return c ?? undefined;
  return undefined;
}

const STANDARD_FINISH = new Set(['stop', 'length', 'tool_calls', 'content_filter', 'function_call']);
const STANDARD_DELTA = new Set(['role', 'content', 'refusal', 'tool_calls', 'reasoning_content']);
const isCount = (n: unknown): boolean => typeof n === 'number' && Number.isInteger(n) && n >= 0;

/**
 * A chunk a Chat Completions client can get as the vendor sent it: the standard envelope, one
 * choice at index 0, only delta fields the encoder writes the same way, tool calls numbered as
 * the unified index will number them (first seen with their id), a standard finish reason and
 * usage. Anything this decoder renames, fills in or renumbers is encoded instead. Checked before
 * `push` updates the tool-call numbering (`known` is the state the chunk is read against).
 */
function standardChunk(body: WireBody, known: ReadonlyMap<number, number>): boolean {
  if (body.object !== 'chat.completion.chunk' || typeof body.id !== 'string' || body.id.length === 0) return false;
  if (typeof body.model !== 'string' || body.model.length === 0 || typeof body.created !== 'number' || body.created <= 0) return false;
  if (body.error !== undefined || body.x_groq !== undefined) return false;
  const usage = body.usage;
  if (usage !== undefined && usage !== null && (!isCount(usage.prompt_tokens) || !isCount(usage.completion_tokens) || !isCount(usage.total_tokens))) return false;
  const choices = body.choices;
  if (!Array.isArray(choices) || choices.length > 1) return false;
  if (choices.length === 0) return usage !== undefined && usage !== null;
  const choice = choices[0];
  if (!choice || choice.index !== 0) return false;
  const finish = choice.finish_reason;
  if (finish !== null && finish !== undefined && !STANDARD_FINISH.has(finish)) return false;
  const delta = choice.delta;
  if (!delta || typeof delta !== 'object') return false;
  for (const key in delta) if (!STANDARD_DELTA.has(key) && delta[key] !== null && delta[key] !== undefined) return false;
  if (delta.role !== undefined && delta.role !== null && delta.role !== 'assistant') return false;
  const calls = delta.tool_calls;
  if (calls === undefined || calls === null) return true;
  if (!Array.isArray(calls)) return false;
  let next = known.size;
  for (const call of calls) {
    if (!call || typeof call.index !== 'number') return false;
    const ours = known.get(call.index);
    if (ours === undefined) {
      // A new call must arrive with its id and type, and in the order the unified index counts.
      if (call.index !== next++ || !call.id || call.type !== 'function') return false;
    } else if (ours !== call.index) return false;
  }
  return true;
}
