/**
 * Fair shares of an origin's upstream connections: one gateway key holds at most `share` of the
 * transport's connections to one origin (its long streams cannot take every pooled socket and
 * leave the other keys waiting on a connection that never frees). A request over its key's share
 * waits, first come first served, until one of the key's own attempts to that origin ends, at
 * most `queueMs` and never past its deadline; then it is refused with a coded 429 naming the
 * share. A refused attempt never left the gateway: nothing is billed for it.
 *
 * Shares are per gateway process (they mirror the process's own connection pool).
 */
import { TENANT_ERRORS } from '@switchyard/contracts';
import { SwitchyardError, type Clock } from '@switchyard/core';

export interface ShareLimits {
  /** The most connections one key may hold to one origin. */
  perKey: number;
  /** Connections per origin the share is taken of (for messages). */
  connections: number;
  share: number;
  queueMs: number;
}

interface Waiter {
  grant(): void;
}

interface Holder {
  held: number;
  queue: Waiter[];
}

/** Gives a held connection back; calling it again does nothing. */
export type Release = () => void;

export class ConnectionShares {
  private readonly holders = new Map<string, Holder>();

  constructor(
    private readonly limits: ShareLimits,
    private readonly clock: Clock,
  ) {}

  /**
   * A connection slot of `keyId` on `origin`: at once while the key is under its share, else
   * when one of its slots frees within `waitMs` (rejects with the coded refusal, or when `onAbort`
   * fires, with nothing held).
   */
  acquire(origin: string, keyId: string, waitMs: number, onAbort: (listener: () => void) => () => void): Release | Promise<Release> {
    const id = `${keyId}\u0000${origin}`;
    let holder = this.holders.get(id);
    if (!holder) this.holders.set(id, (holder = { held: 0, queue: [] }));
    if (holder.held < this.limits.perKey) {
      holder.held++;
      return this.releaser(id, holder);
    }
    const wait = Math.max(0, Math.min(this.limits.queueMs, waitMs));
    const queued = holder;
    return new Promise<Release>((resolve, reject) => {
      let unlink: () => void = () => undefined;
      const leave = (error: unknown) => {
        this.clock.clearTimeout(timer);
        unlink();
        const at = queued.queue.indexOf(waiter);
        if (at >= 0) queued.queue.splice(at, 1);
        this.forget(id, queued);
        reject(error);
      };
      const waiter: Waiter = {
        grant: () => {
          this.clock.clearTimeout(timer);
          unlink();
          queued.held++;
          resolve(this.releaser(id, queued));
        },
      };
      const timer = this.clock.setTimeout(() => leave(this.refusal(keyId, origin, wait)), wait);
      queued.queue.push(waiter);
      // Registered last: an attempt aborted already leaves at once, from the queue it just joined.
      unlink = onAbort(() => leave(new SwitchyardError('cancelled', 'the attempt was aborted while it waited for its share of connections', { retryable: false })));
    });
  }

  /** Slots held now (tests and the status of a key). */
  held(origin: string, keyId: string): number {
    return this.holders.get(`${keyId}\u0000${origin}`)?.held ?? 0;
  }

  private releaser(id: string, holder: Holder): Release {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      holder.held--;
      const next = holder.queue.shift();
      if (next) next.grant();
      else this.forget(id, holder);
    };
  }

  private forget(id: string, holder: Holder): void {
    if (holder.held === 0 && holder.queue.length === 0 && this.holders.get(id) === holder) this.holders.delete(id);
  }

  private refusal(keyId: string, origin: string, waitedMs: number): SwitchyardError {
    const { perKey, connections, share } = this.limits;
    return new SwitchyardError('budget-exhausted', `gateway key ${keyId} holds its share of the connections to ${origin}: at most ${perKey} of ${connections} (${Math.round(share * 100)} %) while other keys may need them; none of its own freed within ${waitedMs} ms`, {
      code: TENANT_ERRORS.SWITCHYARD_ERR_CONNECTION_SHARE,
      status: 429,
      retryAfterMs: 1_000,
      retryable: false,
    });
  }
}
