/**
 * Fits requests to the models they go to, before anything is sent:
 * - parameter checks (route filter, STAGE.FILTER): a deployment whose limits refuse a value
 *   (`max_tokens` above its output cap, `temperature` out of range, too many stop sequences)
 *   is skipped; when no deployment of the model accepts it, the request fails with a 400 that
 *   names the field, instead of a vendor round trip per candidate.
 * - truncation (`truncate: true`): a prompt too long for a deployment's `contextWindow` is
 *   shortened for that deployment's attempt (a `call` tap at STAGE.FIRST replaces the
 *   attempt's request), oldest turns first (truncate.ts), and the answer says so
 *   (`switchyard.truncated`, the gateway's `x-switchyard-truncated`). Deployments it shortens
 *   for are listed in the `shortenable` request slot, so the router does not drop them for their window.
 *
 * A plugin rather than the core's `ProviderV1.unsupported()` seam: limits are per deployment
 * and per operator (presets can be turned off or overridden), checking them is optional, and
 * shortening a prompt changes what is sent, which is policy; the core stays unaware of both.
 */
import { REQUEST_SLOT, ROUTING_ERRORS } from '@switchyard/contracts';
import { MODEL_LIMITS_ERRORS } from './error-codes.js';
import { definePlugin, STAGE, SwitchyardError, tapEveryCall, type Attempt, type Candidate, type ChatRequest, type DeploymentConfig, type ModelLimits, type RequestContext } from '@switchyard/core';
import { requestOriginOf } from '@switchyard/core/wire';
import { limitsOf, violation, type Violation } from './parameter-check.js';
import { modelLimitsOptionsSchema, type ModelLimitsOptions, type ModelLimitsOptionsInput } from './options.js';
import { PROVIDER_PRESETS } from './presets.js';
import { truncateToBudget, type Truncation } from './truncate.js';

export const PLUGIN_NAME = '@switchyard/plugin-model-limits';

type Fit = Truncation | { fits: false; minimumTokens: number } | undefined;

/** Per request: the truncation computed for each budget, shared by the route filter and the call taps. */
const FITS = 'switchyard:model-limits';

function fitsOf(ctx: RequestContext): Map<number, Fit> {
  let fits = ctx.state[FITS] as Map<number, Fit> | undefined;
  if (!fits) ctx.state[FITS] = fits = new Map();
  return fits;
}

function outputReserve(request: ChatRequest, options: ModelLimitsOptions): number {
  const asked = request.max_completion_tokens ?? request.max_tokens;
  return typeof asked === 'number' && asked > 0 ? asked : options.reserveOutputTokens;
}

function refusedParameter(model: string, first: Violation, refusals: Map<string, Violation>): SwitchyardError {
  const targets = [...refusals].map(([deployment, v]) => `${deployment}: ${v.path} ${v.reason}`).join('; ');
  return new SwitchyardError('invalid-request', `${first.path}: ${first.reason}; no deployment of model "${model}" accepts it (${targets})`, {
    code: MODEL_LIMITS_ERRORS.SWITCHYARD_ERR_PARAMETER_LIMIT,
    status: 400,
    path: first.path,
    retryable: false,
  });
}

export const modelLimits = definePlugin<ModelLimitsOptions, ModelLimitsOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: modelLimitsOptionsSchema,
  apply(pipeline, options) {
    const presets = options.presets ? PROVIDER_PRESETS : {};
    // Per deployment object (candidates of one pipeline share it): merged once, not per request.
    const merged = new WeakMap<DeploymentConfig, ModelLimits>();
    const limits = (c: Candidate): ModelLimits => {
      let found = merged.get(c.deployment);
      if (!found) merged.set(c.deployment, (found = limitsOf(c, presets, options.providers)));
      return found;
    };
    const budgetOf = (window: number, request: ChatRequest) => Math.floor(window * (1 - options.safetyMargin)) - outputReserve(request, options);
    const fitFor = (ctx: RequestContext, request: ChatRequest, window: number): Fit => {
      const budget = budgetOf(window, request);
      // The route filter and the attempt see the same request object unless a plugin sent a variant.
      if (request !== ctx.request) return truncateToBudget(request, budget);
      const fits = fitsOf(ctx);
      if (!fits.has(budget)) fits.set(budget, truncateToBudget(request, budget));
      return fits.get(budget);
    };
    // A request that came in another dialect with parts only that dialect carries cannot be rebuilt shorter.
    const shortenable = (request: ChatRequest) => options.truncate && !requestOriginOf(request)?.untranslatable?.length;

    pipeline.hooks.route.tap({ name: PLUGIN_NAME, stage: STAGE.FILTER }, (candidates, _classification, ctx) => {
      if (ctx.kind !== 'chat') return candidates;
      const request = ctx.request as ChatRequest;
      let kept = candidates;
      if (options.checkParameters) {
        const configured = pipeline.candidatesFor(ctx.model);
        let refusals: Map<string, Violation> | undefined;
        let accepted = false;
        for (const c of configured) {
          const refused = violation(request, limits(c));
          if (refused) (refusals ??= new Map()).set(c.deploymentId, refused);
          else accepted = true;
        }
        if (refusals) {
          if (!accepted) throw refusedParameter(ctx.model, refusals.values().next().value!, refusals);
          kept = kept.filter((c) => !refusals!.has(c.deploymentId));
        }
      }
      if (shortenable(request)) {
        let marked: Set<string> | undefined;
        let tooLong: { candidate: Candidate; minimumTokens: number } | undefined;
        kept = kept.filter((c) => {
          const window = c.deployment.contextWindow;
          if (window === undefined) return true;
          const fit = fitFor(ctx, request, window);
          if (fit === undefined) return true;
          if ('fits' in fit) {
            tooLong ??= { candidate: c, minimumTokens: fit.minimumTokens };
            return false;
          }
          (marked ??= new Set()).add(c.id);
          return true;
        });
        if (marked) REQUEST_SLOT.shortenable.set(ctx, marked);
        // Too long for every deployment configured (not merely for those the filters left): a 400.
        const takes = (c: Candidate) => {
          const window = c.deployment.contextWindow;
          const fit = window === undefined ? undefined : fitFor(ctx, request, window);
          return fit === undefined || !('fits' in fit);
        };
        if (kept.length === 0 && tooLong && !pipeline.candidatesFor(ctx.model).some(takes)) {
          throw new SwitchyardError('context-length', `messages: the system prompt and the last user turn alone need about ${tooLong.minimumTokens} tokens, more than any deployment of model "${ctx.model}" has room for (${tooLong.candidate.deploymentId}: contextWindow ${tooLong.candidate.deployment.contextWindow})`, {
            code: ROUTING_ERRORS.SWITCHYARD_ERR_CONTEXT_WINDOW,
            status: 400,
            path: 'messages',
            retryable: false,
          });
        }
      }
      return kept;
    });

    if (!options.truncate) return;
    const shorten = (attempt: Attempt, ctx: RequestContext): undefined => {
      const window = attempt.candidate.deployment.contextWindow;
      if (window === undefined || ctx.kind !== 'chat') return undefined;
      const request = attempt.request as ChatRequest;
      if (!shortenable(request)) return undefined;
      const fit = fitFor(ctx, request, window);
      if (fit && !('fits' in fit)) {
        attempt.request = fit.request;
        attempt.answerInfo = { ...attempt.answerInfo, truncated: { droppedMessages: fit.droppedMessages, fromTokens: fit.fromTokens, toTokens: fit.toTokens, contextWindow: window } };
      }
      return undefined;
    };
    tapEveryCall(pipeline, (hook) => hook.tap({ name: PLUGIN_NAME, stage: STAGE.FIRST }, shorten));
  },
});

export default modelLimits;
