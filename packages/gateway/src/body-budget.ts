/**
 * A global budget of request-body bytes being read at once: without it, 512 concurrent 4 MiB
 * bodies hold 2 GiB (and several times that once parsed). Past the budget a new body is refused
 * with 503 and Retry-After, before it is buffered.
 */
export class BodyBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get inUse(): number {
    return this.used;
  }

  /** Takes `bytes` if they fit; false when the budget is spent. */
  take(bytes: number): boolean {
    if (this.used + bytes > this.maxBytes) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
