/**
 * Which candidates can take a request as it is, checked before any attempt: nothing reaches a
 * vendor half-translated. A candidate is skipped when its provider cannot express a field of
 * the unified request (`provider.unsupported`), or when the client's request has parts only its
 * own dialect carries (request-origin.ts) and the provider does not speak that dialect. When no
 * candidate is left, the request fails with a 400 naming the field and the targets.
 */
import { SwitchyardError } from './errors.js';
import type { ProviderV1, Unsupported } from './provider.js';
import { requestOriginOf } from './request-origin.js';
import type { Candidate, ChatMessage, ChatRequest, ContentPart } from './types.js';

export const UNEXPRESSIBLE_CODE = 'SWITCHYARD_ERR_UNEXPRESSIBLE';

function refusal(request: ChatRequest, candidate: Candidate, provider: ProviderV1 | undefined): Unsupported | undefined {
  if (!provider) return undefined;
  const origin = requestOriginOf(request);
  const foreign = origin?.untranslatable;
  if (foreign && foreign.length > 0 && !provider.speaks?.(origin.format, candidate)) {
    const first = foreign[0]!;
    return { path: first.path, reason: `${first.what} has no equivalent outside ${origin.format} (${provider.id} does not speak it)` };
  }
  return provider.unsupported?.(request, candidate);
}

/**
 * The candidates that can take `request`, in order. `needsCheck` is false when no provider has
 * an `unsupported` check and the request has no untranslatable part: the list comes back as is.
 */
export function expressibleCandidates(request: ChatRequest, configured: readonly Candidate[], providers: ReadonlyMap<string, ProviderV1>, providersCheck: boolean): readonly Candidate[] {
  if (!providersCheck && !requestOriginOf(request)?.untranslatable?.length) return configured;
  let kept: Candidate[] | undefined;
  let first: { refused: Unsupported; candidate: Candidate } | undefined;
  const refusedTargets: string[] = [];
  for (let i = 0; i < configured.length; i++) {
    const candidate = configured[i]!;
    const refused = refusal(request, candidate, providers.get(candidate.provider));
    if (refused) {
      kept ??= configured.slice(0, i);
      first ??= { refused, candidate };
      if (!refusedTargets.includes(candidate.deploymentId)) refusedTargets.push(candidate.deploymentId);
    } else kept?.push(candidate);
  }
  if (!kept) return configured;
  if (kept.length === 0 && first) {
    const { refused } = first;
    throw new SwitchyardError('invalid-request', `${refused.path}: ${refused.reason}; no deployment of model "${request.model}" can take it (${refusedTargets.join(', ')})`, {
      code: UNEXPRESSIBLE_CODE,
      status: 400,
      path: refused.path,
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
