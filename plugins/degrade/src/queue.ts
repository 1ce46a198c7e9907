/**
 * The durable queue: requests that failed at every level, one JSON object per line, so none is
 * silently lost. A line is synced to disk before the request counts as queued. `replayQueue`
 * re-sends them (what `switchyard replay` runs) and rewrites the file without the ones that got
 * a real answer: atomically, and without dropping a line queued while it rewrites.
 */
import { mkdir, open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SwitchyardError, type ChatRequest, type ChatResponse, type Pipeline } from '@switchyard/core';
import { replaceFile } from '@switchyard/core/internal';
import { redactSecrets } from '@switchyard/core/wire';

export interface QueuedRequest {
  id: string;
  /** ISO time of the failure (pipeline clock). */
  time: string;
  model: string;
  stream: boolean;
  request: ChatRequest;
  error: { kind: string; code: string; status?: number; message: string };
  attempts: { deployment?: string; kind: string; status?: number }[];
  /** Set by replayQueue when a replay failed too. */
  replay?: { tries: number; lastTriedAt: string; lastError: string };
}

export function queueEntry(id: string, time: number, request: ChatRequest, stream: boolean, error: SwitchyardError, secrets: readonly (string | undefined)[]): QueuedRequest {
  return {
    id,
    time: new Date(time).toISOString(),
    model: request.model,
    stream,
    request: { ...request, stream: undefined, stream_options: undefined },
    error: { kind: error.kind, code: error.code, status: error.status, message: redactSecrets(error.message, secrets) },
    attempts: (error.attempts ?? []).map((a) => ({ deployment: a.deployment, kind: a.kind, status: a.status })),
  };
}

/** The appends and rewrites of each queue file in this process, one at a time: a rewrite never swallows an append. */
const busy = new Map<string, Promise<void>>();

function exclusive<T>(file: string, work: () => Promise<T>): Promise<T> {
  const key = resolve(file);
  const run = (busy.get(key) ?? Promise.resolve()).then(work);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  busy.set(key, settled);
  void settled.then(() => {
    if (busy.get(key) === settled) busy.delete(key);
  });
  return run;
}

/** Queues `entry`; resolves once the line is on disk (synced), so a crash after it loses nothing. */
export async function appendToQueue(file: string, entry: QueuedRequest): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const line = `${JSON.stringify(entry)}\n`;
  await exclusive(file, async () => {
    // One write per line: O_APPEND keeps another process's appends whole.
    const handle = await open(file, 'a');
    try {
      await handle.write(line);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  });
}

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * Replaces the queue with `rewrite` of its lines, atomically (a synced temporary file renamed over
 * it). Appends from this process wait for it; lines another process appends meanwhile are copied
 * over before the rename.
 */
function rewriteQueue(file: string, rewrite: (lines: string[]) => string[]): Promise<void> {
  return exclusive(file, async () => {
    const original = await readText(file);
    const write = async (out: FileHandle) => {
      await out.write(rewrite(linesOf(original)).map((l) => `${l}\n`).join(''));
      let copied = Buffer.byteLength(original);
      for (;;) {
        const size = (await stat(file).catch(() => undefined))?.size ?? copied;
        if (size <= copied) break;
        const source = await open(file, 'r');
        try {
          const extra = Buffer.alloc(size - copied);
          await source.read(extra, 0, extra.length, copied);
          await out.write(extra);
        } finally {
          await source.close();
        }
        copied = size;
      }
    };
    await replaceFile(file, write, { folderSync: 'if-supported' });
  });
}

function linesOf(text: string): string[] {
  return text.split('\n').filter((l) => l.trim() !== '');
}

async function readLines(file: string): Promise<string[]> {
  return linesOf(await readText(file));
}

function parse(line: string): QueuedRequest | undefined {
  try {
    const value = JSON.parse(line) as QueuedRequest;
    return value && typeof value.id === 'string' && value.request && typeof value.request.model === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The queued requests; lines that are not queue entries are skipped (and kept by replay). */
export async function readQueue(file: string): Promise<QueuedRequest[]> {
  return (await readLines(file)).map(parse).filter((e): e is QueuedRequest => e !== undefined);
}

export interface ReplayResult {
  entry: QueuedRequest;
  ok: boolean;
  response?: ChatResponse;
  error?: SwitchyardError;
}

export interface ReplayOptions {
  onResult?: (result: ReplayResult) => void | Promise<void>;
  signal?: AbortSignal;
  /** Replays at most this many entries (never-tried ones first, then the longest untried); the rest wait for the next run. */
  limit?: number;
}

export interface ReplaySummary {
  replayed: number;
  failed: number;
  remaining: number;
}

/** A canned or stale answer is not what the caller asked for: the entry stays queued. */
function realAnswer(response: ChatResponse): boolean {
  return !response.switchyard?.stale && response.switchyard?.degraded !== 'canned';
}

export async function replayQueue(file: string, pipeline: Pipeline, options: ReplayOptions = {}): Promise<ReplaySummary> {
  // Never-tried entries first, then the longest untried: entries that keep failing do not hold up the rest.
  const lastTried = (e: QueuedRequest) => e.replay?.lastTriedAt ?? '';
  const entries = (await readQueue(file)).sort((a, b) => (lastTried(a) < lastTried(b) ? -1 : lastTried(a) > lastTried(b) ? 1 : 0)).slice(0, options.limit);
  // Nothing to do: the file is left as it is (or absent).
  if (entries.length === 0) return { replayed: 0, failed: 0, remaining: 0 };
  const done = new Set<string>();
  const marks = new Map<string, QueuedRequest['replay']>();
  let failed = 0;
  for (const entry of entries) {
    if (options.signal?.aborted) break;
    let result: ReplayResult;
    try {
      const response = await pipeline.chat(entry.request, { requestId: entry.id, signal: options.signal });
      result = realAnswer(response) ? { entry, ok: true, response } : { entry, ok: false, response, error: new SwitchyardError('all-candidates-failed', `only a ${response.switchyard?.degraded ?? 'stale'} answer`) };
    } catch (error) {
      result = { entry, ok: false, error: SwitchyardError.isInstance(error) ? error : new SwitchyardError('network', String(error), { cause: error }) };
    }
    if (result.ok) done.add(entry.id);
    else {
      failed += 1;
      marks.set(entry.id, { tries: (entry.replay?.tries ?? 0) + 1, lastTriedAt: new Date(pipeline.clock.now()).toISOString(), lastError: result.error?.message ?? 'failed' });
    }
    await options.onResult?.(result);
  }
  // Re-read: lines appended while we replayed stay; a replay that failed again and was queued
  // anew under the same id is kept once, with its replay mark.
  const seen = new Set<string>();
  await rewriteQueue(file, (lines) => {
    const kept: string[] = [];
    for (const line of lines) {
      const entry = parse(line);
      if (!entry) {
        kept.push(line);
        continue;
      }
      if (done.has(entry.id) || seen.has(entry.id)) continue;
      seen.add(entry.id);
      const mark = marks.get(entry.id);
      kept.push(mark ? JSON.stringify({ ...entry, replay: mark }) : line);
    }
    return kept;
  });
  return { replayed: done.size, failed, remaining: seen.size };
}
