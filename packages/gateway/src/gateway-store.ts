/**
 * The StateStore a gateway keeps for its whole life. Every pipeline built from the config
 * (the first one and each reload's) gets this same store, so breaker records, cooldowns,
 * budget counters, health, the cache and the usage totals of unchanged deployments carry
 * over a reload. The config's `store.use` names a shared store (Redis); without it the
 * in-memory store is used, optionally written to `store.snapshot` on graceful shutdown and
 * loaded from it at start.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MemoryStateStore, systemClock, type Clock, type StateStore } from '@switchyard/core';
import { type Importer, type LoadedConfig } from '@switchyard/core/config';
import { type StoreSnapshot } from '@switchyard/core/internal';
import { importerFrom, loadStore } from '@switchyard/core/internal';

export interface GatewayStore {
  readonly store: StateStore;
  /** Where the in-memory store is snapshotted, if configured. */
  readonly snapshotFile?: string;
  /** Entries loaded from the snapshot at start. */
  readonly restored: number;
  /** Writes the snapshot (if configured), then closes the store. */
  close(): Promise<void>;
}

export async function openGatewayStore(config: LoadedConfig, options: { importer?: Importer; clock?: Clock; onWarning?: (message: string, fields: Record<string, unknown>) => void } = {}): Promise<GatewayStore> {
  const baseDir = config.source ? path.dirname(path.resolve(config.source)) : process.cwd();
  if (config.store?.use) {
    const store = await loadStore({ use: config.store.use, options: config.store.options }, options.importer ?? importerFrom(baseDir));
    return { store, restored: 0, close: async () => void (await store.close?.()) };
  }
  const memory = new MemoryStateStore(options.clock ?? systemClock);
  const snapshotFile = config.store?.snapshot ? path.resolve(baseDir, config.store.snapshot) : undefined;
  const restored = snapshotFile ? await restoreSnapshot(memory, snapshotFile, options.onWarning) : 0;
  return {
    store: memory,
    snapshotFile,
    restored,
    async close() {
      if (snapshotFile) await writeSnapshot(memory.snapshot(), snapshotFile);
      await memory.close();
    },
  };
}

async function restoreSnapshot(store: MemoryStateStore, file: string, onWarning?: (message: string, fields: Record<string, unknown>) => void): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') onWarning?.('cannot read the store snapshot; starting with an empty store', { file, error: (error as NodeJS.ErrnoException).code });
    return 0;
  }
  try {
    const snapshot = JSON.parse(text) as StoreSnapshot;
    if (snapshot?.version !== 1 || !Array.isArray(snapshot.entries)) throw new Error(`unknown snapshot version ${String(snapshot?.version)}`);
    return store.restore(snapshot);
  } catch (error) {
    // A bad snapshot must not keep the gateway from starting: budgets restart from zero instead.
    onWarning?.('the store snapshot is unreadable; starting with an empty store', { file, error: (error as Error).message });
    return 0;
  }
}

/** Written to a temporary file and renamed, so a crash mid-write never leaves half a snapshot. */
async function writeSnapshot(snapshot: StoreSnapshot, file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(snapshot), { mode: 0o600 });
  await rename(temporary, file);
}
