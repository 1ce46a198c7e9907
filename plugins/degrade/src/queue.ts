/**
 * The durable queue: requests that failed at every level, one JSON object per line, so none is
 * silently lost. `replayQueue` re-sends them (what `switchyard replay` runs) and rewrites the
 * file without the ones that got a real answer.
 */
import { appendFile, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SwitchyardError, type ChatRequest, type ChatResponse, type Pipeline } from '@switchyard/core';
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

export async function appendToQueue(file: string, entry: QueuedRequest): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  // One write per line: O_APPEND keeps concurrent appends whole.
  await appendFile(file, `${JSON.stringify(entry)}\n`, 'utf8');
}

async function readLines(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
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
  const kept: string[] = [];
  for (const line of await readLines(file)) {
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
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, kept.map((l) => `${l}\n`).join(''), 'utf8');
  await rename(tmp, file);
  return { replayed: done.size, failed, remaining: seen.size };
}
