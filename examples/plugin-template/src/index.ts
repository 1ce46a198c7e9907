/**
 * A Switchyard provider for "Example Chat", a small JSON chat API:
 *   POST /chat  { model, system, messages: [{ role, text }], tools, max_output_tokens, temperature }
 *   auth: `x-example-key: <key>`; streaming: `data: {"type":"delta"|"tool"|"done"|"error", …}`.
 * Replace the wire format with your vendor's; keep the shape (one codec, no transport code).
 */
import { defineProvider, httpError, SwitchyardError, type ChatRequest, type ChatResponse, type FinishReason, type ProviderRequest, type StreamPart, type Usage } from '@switchyard/core';
import { bodyExcerpt, isContextLengthMessage } from '@switchyard/core/wire';

export const PROVIDER_ID = 'example-chat';

interface WireUsage { input: number; output: number }
interface WireToolCall { id: string; name: string; arguments: string }
interface WireAnswer { id: string; model: string; text: string; tool_calls?: WireToolCall[]; stop: string; usage?: WireUsage }
type WireEvent =
  | { type: 'delta'; text: string }
  | { type: 'tool'; index: number; id?: string; name?: string; arguments: string }
  | { type: 'done'; stop: string; usage?: WireUsage }
  | { type: 'error'; error: { code: string; message: string } };

const STOP: Record<string, FinishReason> = { end: 'stop', max_tokens: 'length', tool_use: 'tool_calls', filtered: 'content_filter' };

const usageOf = (u: WireUsage | undefined): Usage | undefined => (u ? { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output } : undefined);

const textOf = (content: ChatRequest['messages'][number]['content']): string => (typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? String(p.text) : '')).join(''));

function authHeaders(apiKey: string | undefined): Record<string, string> {
  // The key travels in a header only: URLs end up in logs, proxies and error messages.
  return apiKey ? { 'x-example-key': apiKey } : {};
}

export const exampleChatProvider = defineProvider({
  specificationVersion: 'v1',
  id: PROVIDER_ID,
  defaultBaseUrl: 'https://api.example-chat.invalid/v1',
  defaultCapabilities: ['tools'],
  buildRequest(request, target, { stream }): ProviderRequest {
    const system = request.messages.filter((m) => m.role === 'system' || m.role === 'developer').map((m) => textOf(m.content)).join('\n');
    const messages = request.messages
      .filter((m) => m.role !== 'system' && m.role !== 'developer')
      .map((m) => (m.role === 'tool' ? { role: 'tool', tool_call_id: m.tool_call_id, text: textOf(m.content) } : { role: m.role, text: textOf(m.content), ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments })) } : {}) }));
    const body = {
      model: target.model,
      ...(system ? { system } : {}),
      messages,
      stream,
      ...(request.tools ? { tools: request.tools.map((t) => ({ name: t.function.name, description: t.function.description, schema: t.function.parameters })) } : {}),
      ...(request.max_tokens !== undefined ? { max_output_tokens: request.max_tokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
    return { method: 'POST', path: '/chat', headers: { 'content-type': 'application/json', ...authHeaders(target.apiKey) }, body: JSON.stringify(body) };
  },
  parseResponse(res, target): ChatResponse {
    const answer = res.json as WireAnswer;
    const toolCalls = answer.tool_calls?.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: c.arguments } }));
    return {
      id: answer.id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: answer.model ?? target.model,
      choices: [{ index: 0, message: { role: 'assistant', content: toolCalls?.length && !answer.text ? null : answer.text, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) }, finish_reason: STOP[answer.stop] ?? 'other' }],
      usage: usageOf(answer.usage),
    };
  },
  createStreamDecoder() {
    return {
      push({ json }): StreamPart[] {
        const event = json as WireEvent;
        switch (event.type) {
          case 'delta':
            return [{ type: 'text-delta', text: event.text }];
          case 'tool':
            return [{ type: 'tool-call-delta', index: event.index, id: event.id, name: event.name, argumentsDelta: event.arguments }];
          case 'done':
            return [{ type: 'finish', finishReason: STOP[event.stop] ?? 'other', rawFinishReason: event.stop, usage: usageOf(event.usage) }];
          case 'error': {
            // An error inside a 200 stream: before the first token the core fails over, after it the stream ends with this error.
            const kind = event.error.code === 'overloaded' ? 'overloaded' : 'server';
            return [{ type: 'error', error: new SwitchyardError(kind, `${PROVIDER_ID} stream error: ${event.error.message}`, { provider: PROVIDER_ID }) }];
          }
          default:
            return []; // unknown event types are ignored
        }
      },
      end: () => [],
    };
  },
  classifyError(res) {
    const message = (res.json as { error?: { message?: string } } | undefined)?.error?.message ?? bodyExcerpt(res.text);
    const kind = res.status === 400 && isContextLengthMessage(message) ? 'context-length' : undefined;
    return httpError({ status: res.status, headers: res.headers, message, kind, provider: PROVIDER_ID });
  },
  // The health probe is a real request: it carries the same auth as a chat request.
  probe: (target) => ({ method: 'GET', path: '/models', headers: authHeaders(target.apiKey) }),
});

export const providers = [exampleChatProvider];
export default exampleChatProvider;
