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
 */
import { createHash, randomUUID } from 'node:crypto';
import { ResponseAccumulator, responseToParts } from './aggregate.js';
import { ChatStream } from './chat-stream.js';
import { sleep, type Clock } from './clock.js';
import { SwitchyardError } from './errors.js';
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
  run(): Promise<ChatResponse | ChatStream>;
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
  const o = { ...run, holder: run.holder ?? randomUUID() };
  if (o.key.length === 0 || o.key.length > MAX_KEY_LENGTH) throw new SwitchyardError('invalid-request', `idempotency key must be 1 to ${MAX_KEY_LENGTH} characters`, { status: 400, path: 'idempotencyKey' });
  const scope = o.owner === undefined ? `${o.request.model} ${o.key}` : `${o.request.model} ${o.owner} ${o.key}`;
  const answerKey = `idempotency:${scope}`;
  const leaseKey = `idempotency-lease:${scope}`;
  const fingerprint = fingerprintOf(o.request);
  const giveUpAt = o.clock.now() + o.deadlineMs;
  for (;;) {
    const stored = await o.store.get<StoredAnswer>(answerKey);
    if (stored) {
      if (stored.fingerprint !== fingerprint) throw new SwitchyardError('invalid-request', 'this idempotency key was used for a different request', { status: 422, path: 'idempotencyKey', code: 'SWITCHYARD_ERR_IDEMPOTENCY_MISMATCH' });
      return replay(stored, o.mode);
    }
    if (await o.store.acquireLease(leaseKey, o.holder, o.deadlineMs)) {
      // The first request may have stored its answer and released the lease between our read and
      // our lease: read again, or a duplicate would call upstream a second time.
      const late = await o.store.get<StoredAnswer>(answerKey);
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

async function runFirst(o: IdempotentRun & { holder: string }, answerKey: string, leaseKey: string, fingerprint: string): Promise<ChatResponse | ChatStream> {
  const release = () => o.store.releaseLease(leaseKey, o.holder).catch(() => undefined);
  let result: ChatResponse | ChatStream;
  try {
    result = await o.run();
  } catch (error) {
    await release();
    throw error;
  }
  if (!(result instanceof ChatStream)) {
    try {
      await o.store.set<StoredAnswer>(answerKey, { fingerprint, response: result }, IDEMPOTENCY_TTL_MS);
    } finally {
      await release();
    }
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
        await o.store.set<StoredAnswer>(answerKey, { fingerprint, response }, IDEMPOTENCY_TTL_MS);
      }
    } finally {
      await release();
    }
  })();
  return new ChatStream(body, inner.info, () => inner.cancel());
}
