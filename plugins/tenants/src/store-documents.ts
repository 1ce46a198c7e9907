/**
 * Read-modify-write of one JSON document in a StateStore: compare-and-set in a loop where the
 * store has it (Redis: atomic on the server, so concurrent writers on several gateways never
 * lose each other's change), a plain write otherwise (serialised per document in this process).
 */
import { TENANT_ERRORS } from '@switchyard/contracts';
import { SwitchyardError, type StateStore } from '@switchyard/core';

const MAX_ROUNDS = 32;

export type Change<T> = (current: T | undefined) => T | undefined;

export class StoreDocuments {
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(readonly store: StateStore) {}

  /** Applies `change` to the document; undefined from `change` leaves it alone. Resolves with the document as it is after. */
  update<T>(key: string, change: Change<T>): Promise<{ value: T | undefined; written: boolean }> {
    const run = (this.chains.get(key) ?? Promise.resolve()).then(() => this.updateNow(key, change));
    const settled = run.catch(() => undefined);
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return run;
  }

  private async updateNow<T>(key: string, change: Change<T>): Promise<{ value: T | undefined; written: boolean }> {
    const { store } = this;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current: T | undefined = await store.get<T>(key);
      const next = change(current);
      if (next === undefined) return { value: current, written: false };
      if (!store.compareAndSet) {
        await store.set(key, next);
        return { value: next, written: true };
      }
      if (await store.compareAndSet(key, current, next)) return { value: next, written: true };
    }
    throw new SwitchyardError('invalid-request', `${key} kept changing under ${MAX_ROUNDS} concurrent writers; try again`, { code: TENANT_ERRORS.SWITCHYARD_ERR_KEY_CONFLICT, status: 409 });
  }
}
