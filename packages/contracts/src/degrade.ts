/** @switchyard/plugin-degrade's events: service-level objectives and the durable queue's replays. */

export interface SloChange {
  name: string;
  state: 'ok' | 'breached';
  /** What is measured: `model:chat` or `deployment:openai/gpt-4o`. */
  scope: string;
  /** Success ratio over the window when it changed, and the sample count. */
  successRate: number;
  samples: number;
  target: number;
  /** The ratio it must reach again to recover (hysteresis). */
  recoverAt: number;
  /** What it does while breached: `degrade:canned`, `exclude:openai/gpt-4o`, `tier:economy`. */
  actions: string[];
  /** Clock ms of the change. */
  at: number;
}

/** A scheduled replay of the durable queue ran. */
export interface QueueReplay { file: string; replayed: number; failed: number; remaining: number }

declare module '@switchyard/core' {
  interface SwitchyardEvents {
    /** A service-level objective was missed (`breached`) or holds again (`ok`): its actions start or stop. */
    'slo:change': [SloChange];
    'queue:replay': [QueueReplay];
  }
}
