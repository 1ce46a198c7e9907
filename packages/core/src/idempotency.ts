/**
 * Idempotency keys (`CallOptions.idempotencyKey`, the gateway's `Idempotency-Key` header),
 * shared through the StateStore so they hold across gateway instances on Redis:
 *
 * - the first request with a key takes a lease and runs; its complete answer is stored for
 *   `ttlMs` (a failure is not stored: a retry may succeed);
 * - a duplicate while the first is in flight waits for that answer (polling the store); a
 *   duplicate stream gets a clean 409 instead of a second upstream call;
 * - a duplicate after completion gets the stored answer (a stream: the answer replayed);
 * - a key reused for a different request is refused (422).
 *
 * A key guarded in one instance's memory is no guard when several gateways share the work:
 * while the shared store is down (`StateStore.available` is false after an operation, or the
 * store throws SWITCHYARD_ERR_STORE_UNAVAILABLE), `whenStoreUnavailable: 'refuse'` (the
 * default) fails the request with a coded 503 before any vendor call; `'local'` goes on with
 * this instance's memory (or without a guard when the store has none) and reports it through
 * `onUnshared` (the pipeline's `idempotency:unshared` event, a warning in the gateway's log).
 */
import { createHash, randomUUID } from 'node:crypto';
import { ResponseAccumulator, responseToParts } from './aggregate.js';
import { ChatStream } from './chat-stream.js';
import { sleep, type Clock } from './clock.js';
import { isSwitchyardError, SwitchyardError } from './errors.js';
import type { StateStore } from './state-store.js';
import type { ChatRequest, ChatResponse, StreamPart } from './types.js';

export const IDEMPOTENCY_TTL_MS = 3_600_000;
const POLL_MS = 100;
const MAX_KEY_LENGTH = 255;

interface StoredAnswer {
  fingerprint: string;
  response: ChatResponse;
}

export interface IdempotentRun {
  store: StateStore;
  clock: Clock;
  key: string;
  /** The lease holder (a random id when unset). */
  holder?: string;
  mode: 'chat' | 'stream';
  request: ChatRequest;
  /** Whose key it is (the caller's key id): the same key from two callers names two requests. */
  owner?: string;
  deadlineMs: number;
  signal?: AbortSignal;
  /** While the shared store is down: `refuse` (a coded 503, the default) or `local` (per instance). */
  whenStoreUnavailable?: IdempotencyFallback;
  /** Why a request is not guarded across instances: this instance alone guards it (`local`; once per request), or its answer could not be stored. */
  onUnshared?(reason: string): void;
  run(): Promise<ChatResponse | ChatStream>;
}

export type IdempotencyFallback = 'refuse' | 'local';

export const IDEMPOTENCY_UNAVAILABLE = 'SWITCHYARD_ERR_IDEMPOTENCY_UNAVAILABLE';

/** Thrown inside runIdempotent when `local` has no local state to use: the request runs unguarded. */
const UNGUARDED = Symbol('unguarded');

type Guarded = IdempotentRun & { holder: string; warned?: boolean };

/** One store operation whose answer counts only if it came from the shared store. */
async function shared<T>(o: Guarded, operation: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await operation();
  } catch (error) {
    if (!isSwitchyardError(error) || error.code !== 'SWITCHYARD_ERR_STORE_UNAVAILABLE') throw error;
    unshared(o, error.message);
    throw UNGUARDED;
  }
  if (o.store.available === false) unshared(o, 'the shared store answered from this instance\'s memory');
  return result;
}

function unshared(o: Guarded, why: string): void {
  if ((o.whenStoreUnavailable ?? 'refuse') === 'refuse') {
    // The store's own words (its address) stay in the cause: the client learns what to do.
    throw new SwitchyardError('plugin', 'this Idempotency-Key cannot be guarded across gateway instances while the shared store is unavailable; retry shortly', {
      cause: new Error(why),
      code: IDEMPOTENCY_UNAVAILABLE,
      status: 503,
      retryAfterMs: 1_000,
      retryable: true,
      path: 'idempotencyKey',
    });
  }
  if (o.warned) return;
  o.warned = true;
  o.onUnshared?.(`idempotency key guarded by this instance only: ${why}`);
}

export const IDEMPOTENCY_CONFLICT = 'SWITCHYARD_ERR_IDEMPOTENCY_CONFLICT';

function fingerprintOf(request: ChatRequest): string {
  // The same request asked as a stream or not is the same request.
  const { stream: _stream, stream_options: _options, ...rest } = request as ChatRequest & { stream?: unknown; stream_options?: unknown };
  return createHash('sha256').update(JSON.stringify(rest)).digest('base64url');
}

function replay(stored: StoredAnswer, mode: 'chat' | 'stream'): ChatResponse | ChatStream {
  const response = stored.response;
  if (mode === 'chat') return response;
  const parts: StreamPart[] = responseToParts(response);
  const info = response.switchyard ?? { endpoint: '', deployment: '', provider: '', attempts: 0 };
  return new ChatStream((async function* () {
    yield* parts;
  })(), { ...info, model: response.model, cached: true });
}

export async function runIdempotent(run: IdempotentRun): Promise<ChatResponse | ChatStream> {
  const o: Guarded = { ...run, holder: run.holder ?? randomUUID() };
  if (o.key.length === 0 || o.key.length > MAX_KEY_LENGTH) throw new SwitchyardError('invalid-request', `idempotency key must be 1 to ${MAX_KEY_LENGTH} characters`, { status: 400, path: 'idempotencyKey' });
  try {
    return await guarded(o);
  } catch (error) {
    // `local` with a store that has no local answer: the request runs, unguarded (and reported).
    if (error === UNGUARDED) return o.run();
    throw error;
  }
}

async function guarded(o: Guarded): Promise<ChatResponse | ChatStream> {
  const scope = o.owner === undefined ? `${o.request.model} ${o.key}` : `${o.request.model} ${o.owner} ${o.key}`;
  const answerKey = `idempotency:${scope}`;
  const leaseKey = `idempotency-lease:${scope}`;
  const fingerprint = fingerprintOf(o.request);
  const giveUpAt = o.clock.now() + o.deadlineMs;
  for (;;) {
    const stored = await shared(o, () => o.store.get<StoredAnswer>(answerKey));
    if (stored) {
      if (stored.fingerprint !== fingerprint) throw new SwitchyardError('invalid-request', 'this idempotency key was used for a different request', { status: 422, path: 'idempotencyKey', code: 'SWITCHYARD_ERR_IDEMPOTENCY_MISMATCH' });
      return replay(stored, o.mode);
    }
    if (await shared(o, () => o.store.acquireLease(leaseKey, o.holder, o.deadlineMs))) {
      // The first request may have stored its answer and released the lease between our read and
      // our lease: read again, or a duplicate would call upstream a second time.
      const late = await shared(o, () => o.store.get<StoredAnswer>(answerKey));
      if (!late) return runFirst(o, answerKey, leaseKey, fingerprint);
      await o.store.releaseLease(leaseKey, o.holder).catch(() => undefined);
      continue;
    }
    if (o.mode === 'stream') {
      throw new SwitchyardError('invalid-request', 'a request with this idempotency key is in progress; retry once it has finished to get its answer', { status: 409, code: IDEMPOTENCY_CONFLICT, retryAfterMs: 1_000, path: 'idempotencyKey' });
    }
    if (o.clock.now() + POLL_MS > giveUpAt) throw new SwitchyardError('timeout', 'the request with this idempotency key did not finish within the deadline', { status: 504 });
    await sleep(o.clock, POLL_MS, o.signal);
  }
}

async function runFirst(o: Guarded, answerKey: string, leaseKey: string, fingerprint: string): Promise<ChatResponse | ChatStream> {
  const release = () => o.store.releaseLease(leaseKey, o.holder).catch(() => undefined);
  let result: ChatResponse | ChatStream;
  try {
    result = await o.run();
  } catch (error) {
    await release();
    throw error;
  }
  // The vendor answered: a store that fails now costs the stored copy, never the answer.
  const keep = (response: ChatResponse) => o.store.set<StoredAnswer>(answerKey, { fingerprint, response }, IDEMPOTENCY_TTL_MS).catch((error: unknown) => o.onUnshared?.(`the answer could not be stored for duplicates: ${(error as Error).message}`));
  if (!(result instanceof ChatStream)) {
    await keep(result);
    await release();
    return result;
  }
  // A stream is stored once it finished cleanly; the lease holds until it ends either way.
  const inner = result;
  const body = (async function* () {
    const acc = new ResponseAccumulator();
    let finished = false;
    let failed = false;
    try {
      for await (const part of inner) {
        if (part.type === 'error') failed = true;
        else acc.add(part);
        if (part.type === 'finish') finished = true;
        yield part;
      }
      if (finished && !failed) {
        const response = acc.toResponse();
        response.switchyard = { ...inner.info };
        await keep(response);
      }
    } finally {
      await release();
    }
  })();
  return new ChatStream(body, inner.info, () => inner.cancel());
}
