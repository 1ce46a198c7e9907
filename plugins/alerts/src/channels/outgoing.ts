import type { Notice } from '../notice.js';

/** One HTTP POST a channel wants sent. `url` may carry a signature and is a secret. */
export interface Outgoing {
  url: string;
  body: unknown;
  headers?: Record<string, string>;
}

/** A channel's formatter: the notice in the receiver's wire format, at time `now` (ms). */
export type Formatter<C> = (notice: Notice, channel: C, now: number) => Outgoing;

export function title(n: Notice): string {
  const what = n.state === 'resolved' ? 'RESOLVED' : n.reminder ? 'STILL FIRING' : n.severity.toUpperCase();
  return `[${what}] ${n.alert}${n.deployment ? ` on ${n.deployment}` : ''}`;
}

/** The lines a chat robot shows under the title. */
export function summaryLines(n: Notice): string[] {
  return [n.message, `severity: ${n.severity} · state: ${n.state} · at: ${n.at}`, ...(n.model ? [`model: ${n.model}`] : [])];
}
