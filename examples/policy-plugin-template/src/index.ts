/** A guardrail: refuses requests whose last user message matches a pattern, before any vendor is called. */
import { defineErrorCodes, definePlugin, STAGE, SwitchyardError, type ChatRequest, type CodesOf } from '@switchyard/core';
import { z } from 'zod';

export const PLUGIN_NAME = '@acme/switchyard-guardrail';

export const GUARDRAIL_ERRORS = defineErrorCodes(PLUGIN_NAME, {
  ACME_ERR_GUARDRAIL_BLOCKED: { kind: 'invalid-request', status: 403 },
});

declare module '@switchyard/core' {
  interface SwitchyardErrorCodes extends CodesOf<typeof GUARDRAIL_ERRORS> {}
  interface SwitchyardEvents {
    'guardrail:blocked': [{ requestId: string; model: string; pattern: string }];
  }
}

export const guardrail = definePlugin({
  name: PLUGIN_NAME,
  core: '^0.1.0',
  optionsSchema: z.object({ pattern: z.string().min(1), flags: z.string().default('i'), message: z.string().default('this request is not allowed') }),
  apply(pipeline, options) {
    const blocked = new RegExp(options.pattern, options.flags);
    pipeline.hooks.classify.tap({ name: PLUGIN_NAME, stage: STAGE.FIRST }, (classification, ctx) => {
      if (ctx.kind !== 'chat') return classification;
      const last = (ctx.request as ChatRequest).messages.filter((m) => m.role === 'user').at(-1);
      const text = typeof last?.content === 'string' ? last.content : (last?.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
      if (!blocked.test(text)) return classification;
      pipeline.events.emit('guardrail:blocked', { requestId: ctx.id, model: ctx.model, pattern: options.pattern });
      throw new SwitchyardError('invalid-request', options.message, { code: GUARDRAIL_ERRORS.ACME_ERR_GUARDRAIL_BLOCKED, path: 'messages', retryable: false });
    });
  },
});

export default guardrail;
