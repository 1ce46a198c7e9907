/**
 * A fault's decision, independent of how it is delivered: msw turns a plan into a Response,
 * the fault server into socket writes, an in-process transport (the simulation) into parts.
 */

export interface PlannedChunk {
  /** Bytes to send (SSE events or a whole JSON body). */
  data: string;
  /** Wait before sending this chunk, on the fault's clock. */
  delayMs: number;
}

/**
 * How the body ends: `close` cleanly; `cut` by the peer dying in the middle of the last chunk
 * (only its first half arrives, with no chunk terminator); `stall` by never sending anything
 * more while keeping the connection open.
 */
export type PlanEnd = 'close' | 'cut' | 'stall';

export type FaultPlan =
  /** The connection dies before any response header (TCP reset). */
  | { kind: 'reset'; delayMs: number }
  /** The request is accepted and never answered. */
  | { kind: 'hang' }
  | { kind: 'respond'; delayMs: number; status: number; headers: Record<string, string>; chunks: PlannedChunk[]; end: PlanEnd };

/** The bytes the peer really sends for a chunk cut in half. */
export function halfOf(data: string): string {
  return data.slice(0, Math.max(1, Math.floor(data.length / 2)));
}
