/**
 * The StateStore a gateway keeps for its whole life. Every pipeline built from the config
 * (the first one and each reload's) gets this same store, so breaker records, cooldowns,
 * budget counters, health, the cache and the usage totals of unchanged deployments carry
 * over a reload. The config's `store.use` names a shared store (Redis); without it the
 * in-memory store is used, optionally written to `store.snapshot` on graceful shutdown and
 * loaded from it at start (soft state only when records are kept).
 *
 * Durable records (docs/deploy.md) are kept behind it, as `records` says: by default a journal
 * beside the config file for a gateway on the in-memory store, and the shared store itself for
 * one on Redis, which must then run with persistence (checked now).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { declareDurableKeys, MemoryStateStore, systemClock, type Clock, type DurableRecordStore, type StateStore } from '@switchyard/core';
import { RecordKeepingStore, type Importer, type LoadedConfig } from '@switchyard/core/config';
import { COMPACT_AFTER_LINES, importerFrom, JournalRecords, loadRecords, loadStore, type StoreSnapshot } from '@switchyard/core/internal';
import { RESPONSE_KEY_PREFIX } from '@switchyard/provider-openai/dialect';

/** The journal's file in $STATE_DIRECTORY, else beside the config, when `records.file` is not given. */
export const DEFAULT_RECORDS_FILE = 'switchyard-records.journal';

export interface GatewayStore {
  readonly store: StateStore;
  /** Where the in-memory store is snapshotted, if configured. */
  readonly snapshotFile?: string;
  /** Entries loaded from the snapshot at start. */
  readonly restored: number;
  /** Where durable records are kept (for the start log), undefined for nowhere. */
  readonly records?: { where: string; restored: number };
  /** Writes the snapshot (if configured), checkpoints the records, then closes the store. */
  close(): Promise<void>;
}

type Warn = (message: string, fields: Record<string, unknown>) => void;

/** A store that can tell whether what it holds survives its own restart (store-redis: CONFIG GET appendonly / save). */
interface PersistenceCheck {
  assertDurable(): Promise<void>;
}

export async function openGatewayStore(config: LoadedConfig, options: { importer?: Importer; clock?: Clock; onWarning?: Warn } = {}): Promise<GatewayStore> {
  const baseDir = config.source ? path.dirname(path.resolve(config.source)) : process.cwd();
  const importer = options.importer ?? importerFrom(baseDir);
  const clock = options.clock ?? systemClock;
  const records = config.records;
  let hot: StateStore;
  let memory: MemoryStateStore | undefined;
  if (config.store?.use) hot = await loadStore({ use: config.store.use, options: config.store.options }, importer);
  else hot = memory = new MemoryStateStore(clock);
  const shared = memory === undefined;

  let recordStore: DurableRecordStore | undefined;
  const journal = (file: string): JournalRecords =>
    new JournalRecords(file, { clock, onRewriteError: (error) => options.onWarning?.(`the records journal could not be rewritten with its live records; it goes on growing, and tries again after ${COMPACT_AFTER_LINES} more lines`, { where: file, error: (error as Error).message }) });
  try {
    if (records && records.use) recordStore = await loadRecords({ use: records.use, options: records.options }, importer);
    else if (records && records.file) recordStore = journal(path.resolve(baseDir, records.file));
    else if (!shared && records !== false && !records?.inStore && (config.source || stateDirectory())) recordStore = journal(path.resolve(stateDirectory() ?? baseDir, DEFAULT_RECORDS_FILE));
    else if (shared && records !== false) await (hot as Partial<PersistenceCheck>).assertDurable?.();
  } catch (error) {
    await hot.close?.();
    throw error;
  }

  const snapshotFile = config.store?.snapshot ? path.resolve(baseDir, config.store.snapshot) : undefined;
  const restored = memory && snapshotFile ? await restoreSnapshot(memory, snapshotFile, options.onWarning) : 0;
  if (!recordStore) {
    return {
      store: hot,
      snapshotFile,
      restored,
      records: shared && records !== false ? { where: 'the shared store', restored: 0 } : undefined,
      async close() {
        if (memory && snapshotFile) await writeSnapshot(memory.snapshot(), snapshotFile);
        await hot.close?.();
      },
    };
  }
  const keeping = new RecordKeepingStore(hot, recordStore, { shared, clock, flushMs: records ? records.flushMs : undefined, onError: (error) => options.onWarning?.('a checkpoint of spend to the record store failed; retrying', { where: recordStore.where, error: (error as Error).message }) });
  try {
    await keeping.open();
  } catch (error) {
    await hot.close?.();
    throw error;
  }
  // Stored Responses within their TTL are the gateway's own durable records.
  declareDurableKeys(keeping, '@switchyard/gateway', { records: [RESPONSE_KEY_PREFIX] });
  return {
    store: keeping,
    snapshotFile,
    restored,
    records: { where: recordStore.where, restored: keeping.restored },
    async close() {
      // The records are in the journal: the snapshot keeps the soft state only.
      if (memory && snapshotFile) await writeSnapshot(softOnly(memory.snapshot(), keeping), snapshotFile);
      await keeping.close();
    },
  };
}

/** systemd's StateDirectory= (and the Kubernetes manifest's volume) set STATE_DIRECTORY: the journal goes there rather than beside a read-only config. */
function stateDirectory(): string | undefined {
  return process.env.STATE_DIRECTORY?.split(':')[0] || undefined;
}

function softOnly(snapshot: StoreSnapshot, keeping: RecordKeepingStore): StoreSnapshot {
  return { ...snapshot, entries: snapshot.entries.filter(([key]) => !keeping.kindOf(key) && !key.startsWith('switchyard:records:')) };
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
