/**
 * A minimal OpenAI-style codec used by the core's own tests, so they exercise the pipeline
 * without depending on a provider package.
 */
import { defineProvider, httpError, SwitchyardError, type FinishReason, type StreamPart, type Usage } from '../../src/index.js';

export const testProvider = defineProvider({
  specificationVersion: 'v1',
  id: 'test',
  buildRequest(request, target, { stream }) {
    return {
      method: 'POST',
      path: '/chat/completions',
      headers: { 'content-type': 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
      body: JSON.stringify({ model: target.model, messages: request.messages, stream }),
    };
  },
  parseResponse(res) {
    return res.json as never;
  },
  createStreamDecoder() {
    return {
      push(event) {
        const chunk = event.json as { id?: string; model?: string; error?: { message: string }; choices?: { delta?: { content?: string }; finish_reason?: string | null }[]; usage?: Usage };
        const parts: StreamPart[] = [];
        if (chunk.error) return [{ type: 'error', error: new SwitchyardError('server', chunk.error.message) }];
        if (chunk.id) parts.push({ type: 'response-metadata', id: chunk.id, model: chunk.model });
        const choice = chunk.choices?.[0];
        if (choice?.delta?.content) parts.push({ type: 'text-delta', text: choice.delta.content });
        if (choice?.finish_reason) parts.push(chunk.usage ? { type: 'finish', finishReason: choice.finish_reason as FinishReason, usage: chunk.usage } : { type: 'finish', finishReason: choice.finish_reason as FinishReason });
        return parts;
      },
      end: () => [],
    };
  },
  classifyError(res) {
    const body = res.json as { error?: { message?: string; code?: string } } | undefined;
    const message = body?.error?.message ?? res.text;
    const code = body?.error?.code;
    return httpError({ status: res.status, headers: res.headers, message, vendorCode: code, provider: 'test', kind: code === 'context_length_exceeded' ? 'context-length' : undefined });
  },
});
