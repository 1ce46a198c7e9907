/**
 * A real one-token chat completion per deployment (the health plugin's `completion` probe, run
 * once): a `GET /models` that answers 200 says nothing about a chat route that answers 503.
 */
import { outcomeOf, type Pipeline } from '@switchyard/core';
import { Prober, type ProbeResult } from '@switchyard/plugin-health';

export interface CompletionCheck {
  deployment: string;
  ok: boolean;
  latencyMs?: number;
  /** The failure's kind and outcome class, e.g. `overloaded (endpoint-failure)`. */
  errorClass?: string;
  note?: string;
}

export interface CompletionOptions {
  timeoutMs: number;
  maxTokens: number;
  prompt?: string;
}

function describe(result: ProbeResult | undefined, deployment: string): CompletionCheck {
  if (!result) return { deployment, ok: false, note: 'the provider cannot build a chat request' };
  if (result.ok) return { deployment, ok: true, latencyMs: Math.round(result.latencyMs) };
  const error = result.error;
  return {
    deployment,
    ok: false,
    latencyMs: Math.round(result.latencyMs),
    errorClass: error ? `${error.kind} (${outcomeOf(error)})` : 'unknown',
    note: error ? `${error.status ? `HTTP ${error.status}: ` : ''}${error.message}`.slice(0, 120) : undefined,
  };
}

export async function completeDeployments(pipeline: Pipeline, options: CompletionOptions): Promise<CompletionCheck[]> {
  const prober = new Prober(pipeline, { completion: { intervalMs: 60_000, timeoutMs: options.timeoutMs, prompt: options.prompt ?? 'Reply with the single word: ok', maxTokens: options.maxTokens } }, () => undefined);
  try {
    return await Promise.all(prober.targets().map(async (target) => describe(await prober.probeOnce(target, 'completion'), target.deploymentId)));
  } finally {
    prober.stop();
  }
}
