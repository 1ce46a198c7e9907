/** An answer the plugin gives itself (canned text, a curated answer): no vendor, no tokens. */
import type { ChatResponse, RequestContext } from '@switchyard/core';

export function fixedAnswer(text: string, ctx: RequestContext, source: 'canned' | 'curated'): ChatResponse {
  return {
    id: `${source}-${ctx.id}`,
    object: 'chat.completion',
    created: Math.floor(ctx.clock.now() / 1000),
    model: source,
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    switchyard: { endpoint: source === 'canned' ? 'degrade' : 'curated', deployment: source, provider: 'degrade', attempts: ctx.attempts.length },
  };
}
