/**
 * A provider for a Cohere-style chat API ("Acme Chat", v2): `POST /v2/chat`, content blocks,
 * `event:`-typed SSE. Written only against @switchyard/core's public exports, as any
 * third-party author would.
 */
import { defineProvider, httpError, SwitchyardError, type ChatRequest, type ChatResponse, type FinishReason, type StreamPart, type Usage } from '@switchyard/core';
import { bodyExcerpt, isContextLengthMessage } from '@switchyard/core/wire';

interface AcmeUsage { tokens?: { input_tokens?: number; output_tokens?: number } }
interface AcmeToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }
interface AcmeResponse {
  id: string;
  finish_reason: string;
  message: { role: 'assistant'; content?: { type: 'text'; text: string }[]; tool_calls?: AcmeToolCall[] };
  usage?: AcmeUsage;
}

const FINISH: Record<string, FinishReason> = { COMPLETE: 'stop', STOP_SEQUENCE: 'stop', MAX_TOKENS: 'length', TOOL_CALL: 'tool_calls', ERROR: 'error' };

function usageOf(u: AcmeUsage | undefined): Usage | undefined {
  if (!u?.tokens) return undefined;
  const prompt = u.tokens.input_tokens ?? 0;
  const completion = u.tokens.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function toAcmeMessages(request: ChatRequest) {
  return request.messages.map((m) => {
    const text = typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => (p.type === 'text' ? (p as { text: string }).text : '')).join('');
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id, content: text };
    if (m.role === 'assistant' && m.tool_calls) return { role: 'assistant', tool_calls: m.tool_calls };
    return { role: m.role === 'developer' ? 'system' : m.role, content: text };
  });
}

export const acmeProvider = defineProvider({
  specificationVersion: 'v1',
  id: 'acme',
  defaultBaseUrl: 'https://api.acme.example/v2',
  defaultCapabilities: ['tools'],
  buildRequest(request, target, { stream }) {
    const body = {
      model: target.model,
      messages: toAcmeMessages(request),
      stream,
      ...(request.tools ? { tools: request.tools } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.max_tokens !== undefined ? { max_tokens: request.max_tokens } : {}),
    };
    return { method: 'POST', path: '/chat', headers: { 'content-type': 'application/json', authorization: `Bearer ${target.apiKey ?? ''}` }, body: JSON.stringify(body) };
  },
  parseResponse(res, target): ChatResponse {
    const r = res.json as AcmeResponse;
    const text = (r.message.content ?? []).map((c) => c.text).join('');
    return {
      id: r.id,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: target.model,
      choices: [{ index: 0, message: { role: 'assistant', content: r.message.tool_calls?.length && !text ? null : text, ...(r.message.tool_calls?.length ? { tool_calls: r.message.tool_calls } : {}) }, finish_reason: FINISH[r.finish_reason] ?? 'other' }],
      usage: usageOf(r.usage),
    };
  },
  createStreamDecoder(target) {
    let toolIndex = -1;
    return {
      push({ json }): StreamPart[] {
        const event = json as { type: string; id?: string; delta?: { message?: { content?: { text?: string }; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } } }; finish_reason?: string; usage?: AcmeUsage } };
        switch (event.type) {
          case 'message-start':
            return [{ type: 'response-metadata', id: event.id, model: target.model }];
          case 'content-delta':
            return event.delta?.message?.content?.text ? [{ type: 'text-delta', text: event.delta.message.content.text }] : [];
          case 'tool-call-start': {
            toolIndex++;
            const call = event.delta?.message?.tool_calls;
            return [{ type: 'tool-call-delta', index: toolIndex, id: call?.id, name: call?.function?.name, argumentsDelta: call?.function?.arguments ?? '' }];
          }
          case 'tool-call-delta':
            return [{ type: 'tool-call-delta', index: toolIndex, argumentsDelta: event.delta?.message?.tool_calls?.function?.arguments ?? '' }];
          case 'message-end':
            return [{ type: 'finish', finishReason: FINISH[event.delta?.finish_reason ?? ''] ?? 'other', rawFinishReason: event.delta?.finish_reason, usage: usageOf(event.delta?.usage) }];
          default:
            return []; // unknown event types are ignored
        }
      },
      end: () => [],
    };
  },
  classifyError(res) {
    const message = (res.json as { message?: string } | undefined)?.message ?? bodyExcerpt(res.text);
    const kind = res.status === 400 && isContextLengthMessage(message) ? 'context-length' : undefined;
    return httpError({ status: res.status, headers: res.headers, message, kind, provider: 'acme' });
  },
  // The probe is a real request to the vendor: it carries the key like any other.
  probe: (target) => ({ method: 'GET', path: '/models', headers: { authorization: `Bearer ${target.apiKey ?? ''}` } }),
});

export const providers = [acmeProvider];
export { SwitchyardError };
