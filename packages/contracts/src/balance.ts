/** @switchyard/plugin-balance's event: a key's vendor account balance. */
import type { AccountBalance } from '@switchyard/core';

/**
 * A key's vendor account balance, polled: `low` under its endpoint's `minBalance` (or
 * refused), `dry` when the vendor refuses calls; `error` when it could not be read.
 */
export interface BalanceUpdate { endpoint: string; keyId: string; provider: string; balances: AccountBalance[]; minBalance?: number; low: boolean; dry: boolean; checkedAt: number; error?: string }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    'balance:update': [BalanceUpdate];
  }
}
