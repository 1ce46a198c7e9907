/**
 * Anthropic's rules for a request that carries another request's state. Signed thinking blocks
 * are bound to the deployment (issuer) that signed them: another one refuses them with "Invalid
 * `signature` in `thinking` block". And with thinking on, Anthropic refuses a prefilled
 * assistant answer. So a cut answer continues here with thinking off and every thinking block
 * left out, built from the client's own Messages body when it came in that dialect (the
 * continuation stays in the client's dialect: cache_control, betas and tools as the client sent
 * them); and a signature refusal is repaired once on the same deployment by leaving out the
 * thinking of earlier turns (their answers stand), or all of it with thinking off when the
 * current turn has some (repairThinking).
 */
import type { ChatMessage, ChatRequest, SwitchyardError } from '@switchyard/core';
import { setRequestOrigin, type DroppedPart } from '@switchyard/core/wire';
import { messagesOrigin } from './pass-through.js';
import { PROVIDER_KEY } from './thinking.js';

type WireMessage = { role?: unknown; content?: unknown };

const THINKING_BLOCKS = new Set(['thinking', 'redacted_thinking']);
const SIGNATURE_REFUSAL = /signature/i;

/** Anthropic refuses a prefill that ends with whitespace; the continuation supplies it. */
function prefillText(partialText: string): string {
  return partialText.trimEnd();
}

function withoutWireThinking(message: WireMessage): WireMessage {
  if (message.role !== 'assistant' || !Array.isArray(message.content)) return message;
  const content = message.content.filter((b: { type?: unknown }) => !THINKING_BLOCKS.has(b?.type as string));
  return content.length === message.content.length ? message : { ...message, content };
}

function withoutThinking(message: ChatMessage): ChatMessage {
  const own = message.providerMetadata?.[PROVIDER_KEY];
  if (message.role !== 'assistant' || !own || !('thinkingBlocks' in own)) return message;
  const { thinkingBlocks: _dropped, ...rest } = own;
  return { ...message, providerMetadata: { ...message.providerMetadata, [PROVIDER_KEY]: rest } };
}

/** Where the current turn starts: after the last user message that is not only tool results. */
function currentTurnStart(messages: readonly WireMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const onlyToolResults = Array.isArray(m.content) && m.content.length > 0 && m.content.every((b: { type?: unknown }) => b?.type === 'tool_result');
    if (!onlyToolResults) return i;
  }
  return 0;
}

function unifiedTurnStart(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return 0;
}

/** A request sharing `request`'s fields, with `messages` and, for a Messages client, its body changed by `body`. */
function derived(request: ChatRequest, messages: ChatMessage[], changes: Partial<ChatRequest>, body?: (body: Record<string, unknown>) => void): ChatRequest {
  const next: ChatRequest = { ...request, ...changes, messages };
  const origin = messagesOrigin(request);
  if (origin && body) {
    const copy: Record<string, unknown> = { ...origin.body };
    body(copy);
    // Changed, so no longer the client's text (model-splice.ts would send the old one).
    setRequestOrigin(next, { ...origin, body: copy, text: undefined });
  }
  return next;
}

function thinkingOn(request: ChatRequest): boolean {
  const thinking = messagesOrigin(request)?.body.thinking as { type?: unknown } | undefined;
  return (thinking !== undefined && thinking.type !== 'disabled') || request.reasoning_effort !== undefined;
}

/**
 * `request` with every thinking block left out and thinking off (with the `context_management`
 * edits that need it on), then `extra` appended: what another issuer, or a prefill, can take.
 */
function withoutAnyThinking(request: ChatRequest, extra?: string): ChatRequest {
  const messages = request.messages.map(withoutThinking);
  if (extra !== undefined) messages.push({ role: 'assistant', content: extra });
  const off = thinkingOn(request);
  return derived(request, messages, off ? { reasoning_effort: undefined } : {}, (body) => {
    const wire = Array.isArray(body.messages) ? (body.messages as WireMessage[]).map(withoutWireThinking) : [];
    body.messages = extra === undefined ? wire : [...wire, { role: 'assistant', content: [{ type: 'text', text: extra }] }];
    if (off) {
      delete body.thinking;
      dropThinkingEdits(body);
    }
  });
}

/**
 * The request that continues `partialText` on `target` (ProviderV1.continuation): the partial
 * answer as the last assistant turn, thinking off and every thinking block left out (they were
 * signed by the cut deployment, and a prefill with thinking on is refused). The client's tools
 * and everything else stay as sent.
 */
export function anthropicContinuation(request: ChatRequest, partialText: string): ChatRequest {
  const next = withoutAnyThinking(request, prefillText(partialText));
  const dropped: DroppedPart[] = [];
  if (thinkingOn(request)) dropped.push({ path: 'thinking', what: 'extended thinking (turned off: Anthropic refuses a prefilled answer with thinking on)', feature: 'thinking' });
  if (request.messages.some(hasThinking) || hasAnyWireThinking(request)) dropped.push({ path: 'messages', what: 'the thinking blocks of earlier turns (signed by another deployment)', feature: 'block:thinking' });
  if (dropped.length > 0) leftOut.set(next, dropped);
  return next;
}

/** What a continuation was built without (the thinking it turned off and left out), disclosed like any drop. */
const leftOut = new WeakMap<ChatRequest, readonly DroppedPart[]>();

/** ProviderV1.drops' share for a continuation built here. */
export function continuationDrops(request: ChatRequest): readonly DroppedPart[] | undefined {
  return leftOut.get(request);
}

function hasAnyWireThinking(request: ChatRequest): boolean {
  const wire = messagesOrigin(request)?.body.messages;
  return Array.isArray(wire) && (wire as WireMessage[]).some(hasWireThinking);
}

/** `context_management` edits that clear thinking need thinking on: left out with it. */
function dropThinkingEdits(body: Record<string, unknown>): void {
  const management = body.context_management as { edits?: { type?: unknown }[] } | undefined;
  if (!management || !Array.isArray(management.edits)) return;
  const edits = management.edits.filter((e) => typeof e?.type !== 'string' || !e.type.startsWith('clear_thinking'));
  if (edits.length === management.edits.length) return;
  if (edits.length === 0) delete body.context_management;
  else body.context_management = { ...management, edits };
}

/** Whether `error` is Anthropic's refusal of a thinking block signed elsewhere. */
export function isSignatureRefusal(error: SwitchyardError): boolean {
  return error.status === 400 && SIGNATURE_REFUSAL.test(error.message) && /thinking/i.test(error.message);
}

function hasWireThinking(message: WireMessage): boolean {
  return withoutWireThinking(message) !== message;
}

function hasThinking(message: ChatMessage): boolean {
  return withoutThinking(message) !== message;
}

/**
 * The repair of a signature refusal (ProviderV1.repair), one retry that must be enough. Without
 * thinking in the current turn, the earlier turns' thinking is left out (a healed cut: the answer
 * the client kept was signed by the cut deployment). With thinking in the current turn (a tool
 * loop that failed over from another issuer: Anthropic names only the first foreign block, and a
 * tool loop's turn must start with thinking while thinking is on), every thinking block is left
 * out and thinking turned off for this request. Undefined when the error is another one.
 */
export function repairThinking(request: ChatRequest, error: SwitchyardError): ChatRequest | undefined {
  if (!isSignatureRefusal(error)) return undefined;
  const origin = messagesOrigin(request);
  const wire = Array.isArray(origin?.body.messages) ? (origin.body.messages as WireMessage[]) : undefined;
  const start = unifiedTurnStart(request.messages);
  const inCurrentTurn = wire ? wire.slice(currentTurnStart(wire)).some(hasWireThinking) : request.messages.slice(start).some(hasThinking);
  if (inCurrentTurn) return withoutAnyThinking(request);
  const earlier = wire ? wire.slice(0, currentTurnStart(wire)).some(hasWireThinking) : request.messages.slice(0, start).some(hasThinking);
  if (!earlier) return undefined; // nothing to leave out: the same request would be refused again
  const messages = request.messages.map((m, i) => (i < start ? withoutThinking(m) : m));
  return derived(request, messages, {}, (body) => {
    if (!wire) return;
    const from = currentTurnStart(wire);
    body.messages = wire.map((m, i) => (i < from ? withoutWireThinking(m) : m));
  });
}
