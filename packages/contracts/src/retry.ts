/** @switchyard/plugin-retry's words: the retry budget the hedge plugin spends, its misconfiguration event. */
import { defineService, type SwitchyardError } from '@switchyard/core';

export interface RetryBudgetService {
  /** Spends one retry (or hedge) from a deployment's budget; false when it is exhausted. */
  tryWithdraw(deploymentId: string): Promise<boolean>;
}

/** Provided by @switchyard/plugin-retry; the hedge plugin spends it. */
export const RETRY_BUDGET = defineService<RetryBudgetService>('switchyard.retry-budget', { providedBy: '@switchyard/plugin-retry' });

/** A deployment answered in a way only a config change fixes (a 404 model, a rejected key). */
export interface DeploymentMisconfigured { deployment: string; error: SwitchyardError }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    'deployment:misconfigured': [DeploymentMisconfigured];
  }
}
