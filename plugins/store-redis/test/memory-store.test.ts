/** The contract holds for the in-memory default, on virtual time. */
import { MemoryStateStore, VirtualClock } from '@switchyard/core';
import { stateStoreContract } from './support/state-store-contract.js';

stateStoreContract('MemoryStateStore', async () => {
  const clock = new VirtualClock();
  const store = new MemoryStateStore(clock);
  return { store, peer: store, elapse: (ms) => clock.advance(ms), ttlMs: 1_000, dispose: () => store.close() };
});
