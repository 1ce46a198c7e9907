/**
 * What each first-party provider's API accepts, from the vendors' API references: sampling
 * ranges and how many stop sequences. Output caps are per model, so they come from a
 * deployment's `limits.maxOutputTokens` only.
 */
import type { ModelLimits } from '@switchyard/core';

const OPENAI: ModelLimits = { temperature: [0, 2], topP: [0, 1], presencePenalty: [-2, 2], frequencyPenalty: [-2, 2], maxStop: 4 };

export const PROVIDER_PRESETS: Readonly<Record<string, ModelLimits>> = Object.freeze({
  openai: OPENAI,
  azure: OPENAI,
  deepseek: { temperature: [0, 2], topP: [0, 1], presencePenalty: [-2, 2], frequencyPenalty: [-2, 2], maxStop: 16 },
  anthropic: { temperature: [0, 1], topP: [0, 1] },
  gemini: { temperature: [0, 2], topP: [0, 1], maxStop: 5 },
});
