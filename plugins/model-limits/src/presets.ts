/**
 * What each first-party provider's API accepts, from the vendors' API references: sampling
 * ranges, how many stop sequences and the values of enumerated fields. Output caps are per model, so they come from a
 * deployment's `limits.maxOutputTokens` only.
 */
import type { ModelLimits } from '@switchyard/core';

/** The response formats of OpenAI's chat completions API. */
const RESPONSE_FORMATS = ['text', 'json_object', 'json_schema'];

const OPENAI: ModelLimits = { temperature: [0, 2], topP: [0, 1], presencePenalty: [-2, 2], frequencyPenalty: [-2, 2], maxStop: 4, values: { 'response_format.type': RESPONSE_FORMATS } };

export const PROVIDER_PRESETS: Readonly<Record<string, ModelLimits>> = Object.freeze({
  openai: OPENAI,
  azure: OPENAI,
  deepseek: { temperature: [0, 2], topP: [0, 1], presencePenalty: [-2, 2], frequencyPenalty: [-2, 2], maxStop: 16, values: { 'response_format.type': ['text', 'json_object'] } },
  anthropic: { temperature: [0, 1], topP: [0, 1] },
  gemini: { temperature: [0, 2], topP: [0, 1], maxStop: 5 },
});
