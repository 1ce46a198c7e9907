/**
 * Which candidates can take a request as it is, checked before any attempt: nothing reaches a
 * vendor half-translated. A candidate is skipped when its provider cannot express a field of
 * the unified request (`provider.unsupported`), when the client's request has capabilities only
 * its own dialect carries (request-origin.ts) and the provider does not speak that dialect, or
 * when it has hints and the deployment is `translate: strict`. Each skip is reported (the
 * pipeline emits `candidate:skipped`); when no candidate is left, the request fails with a 400
 * naming the field and the targets.
 */
import { SwitchyardError } from './errors.js';
import type { ProviderV1, Unsupported } from './provider.js';
import { requestOriginOf } from './request-origin.js';
import type { Candidate, ChatMessage, ChatRequest, ContentPart } from './types.js';
import { isStrict, type SkippedCandidate } from './translation.js';

export const UNEXPRESSIBLE_CODE = 'SWITCHYARD_ERR_UNEXPRESSIBLE';

interface Refusal extends Unsupported {
  feature: string;
}

function refusal(request: ChatRequest, candidate: Candidate, provider: ProviderV1 | undefined): Refusal | undefined {
  if (!provider) return undefined;
  const origin = requestOriginOf(request);
  if (origin && !provider.speaks?.(origin.format, candidate)) {
    const foreign = origin.untranslatable;
    if (foreign && foreign.length > 0) {
      const first = foreign[0]!;
      return { path: first.path, reason: `${first.what} has no equivalent outside ${origin.format} (${provider.id} does not speak it)`, feature: first.feature ?? 'unlisted' };
    }
    const hints = origin.hints;
    if (hints && hints.length > 0 && isStrict(candidate)) {
      const first = hints[0]!;
      return { path: first.path, reason: `${first.what} would be dropped for ${provider.id}, and this deployment has translate: strict`, feature: first.feature ?? 'unlisted' };
    }
  }
  const refused = provider.unsupported?.(request, candidate);
  return refused && { path: refused.path, reason: refused.reason, feature: 'unsupported' };
}

/**
 * The candidates that can take `request`, in order; each one left out is added to `skipped`
 * with why (translation.ts). The list comes back as is when no provider has an `unsupported`
 * check and the request has no untranslatable part nor hints.
 */
export function expressibleCandidates(request: ChatRequest, configured: readonly Candidate[], providers: ReadonlyMap<string, ProviderV1>, providersCheck: boolean, skipped?: SkippedCandidate[]): readonly Candidate[] {
  const origin = requestOriginOf(request);
  if (!providersCheck && !origin?.untranslatable?.length && !origin?.hints?.length) return configured;
  let kept: Candidate[] | undefined;
  let first: Refusal | undefined;
  const refusedTargets: string[] = [];
  for (let i = 0; i < configured.length; i++) {
    const candidate = configured[i]!;
    const refused = refusal(request, candidate, providers.get(candidate.provider));
    if (refused) {
      kept ??= configured.slice(0, i);
      first ??= refused;
      skipped?.push({ candidate, path: refused.path, reason: refused.reason, feature: refused.feature });
      if (!refusedTargets.includes(candidate.deploymentId)) refusedTargets.push(candidate.deploymentId);
    } else kept?.push(candidate);
  }
  if (!kept) return configured;
  if (kept.length === 0 && first) {
    throw new SwitchyardError('invalid-request', `${first.path}: ${first.reason}; no deployment of model "${request.model}" can take it (${refusedTargets.join(', ')})`, {
      code: UNEXPRESSIBLE_CODE,
      status: 400,
      path: first.path,
      retryable: false,
    });
  }
  return kept;
}

/**
 * The first content part a provider's `unsupported` check turns down: `refuse` sees every part
 * of every message whose content is an array (string content is text, which every vendor
 * takes), with its path.
 */
export function refusedPart(request: ChatRequest, refuse: (part: ContentPart, path: string, message: ChatMessage) => Unsupported | undefined): Unsupported | undefined {
  const { messages } = request;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    const { content } = message;
    if (!Array.isArray(content)) continue;
    for (let j = 0; j < content.length; j++) {
      const refused = refuse(content[j]!, `messages[${i}].content[${j}]`, message);
      if (refused) return refused;
    }
  }
  return undefined;
}
