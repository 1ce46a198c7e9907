/**
 * The balance plugin: vendor account balances of every key whose provider has a balance route
 * (DeepSeek, Moonshot), polled off the request path; `balance:update` events feed
 * plugin-alerts (`balance-low`) and the gateway's /status.
 */
import { definePlugin, SwitchyardError, type Pipeline } from '@switchyard/core';
import { balanceOptionsSchema, type BalanceOptions, type BalanceOptionsInput } from './options.js';
import { BalancePoller, balanceTargets, type BalanceReading } from './poller.js';

export const PLUGIN_NAME = '@switchyard/plugin-balance';

export interface BalanceHandle {
  /** The last reading of every polled key. */
  readings(): BalanceReading[];
  /** Polls every key now (tests, a CLI), after the round in progress. */
  pollNow(): Promise<void>;
  /** Resolves once the polling round in progress (the timer's) has finished. */
  settled(): Promise<void>;
}

const handles = new WeakMap<Pipeline, BalanceHandle>();

export function getBalances(pipeline: Pipeline): BalanceHandle | undefined {
  return handles.get(pipeline);
}

export const balance = definePlugin<BalanceOptions, BalanceOptionsInput>({
  name: PLUGIN_NAME,
  version: '0.1.0',
  core: '^0.1.0',
  optionsSchema: balanceOptionsSchema,
  apply(pipeline, options) {
    checkEndpoints(pipeline, options);
    const { clock, events } = pipeline;
    const poller = new BalancePoller(pipeline, options, balanceTargets(pipeline, options));
    let round: Promise<void> = Promise.resolve();
    const pollNow = () => (round = round.then(() => poller.pollAll()).catch((error: unknown) => void events.emit('plugin-error', { plugin: PLUGIN_NAME, stage: 'poll', error })));
    let timer = clock.setTimeout(function tick() {
      void pollNow();
      timer = clock.setTimeout(tick, options.everyMs);
      (timer as { unref?: () => void }).unref?.();
    }, 0);
    // Never the reason a process stays up.
    (timer as { unref?: () => void }).unref?.();
    handles.set(pipeline, { readings: () => poller.readings(), pollNow, settled: () => round });
    events.once('pipeline:close', () => {
      clock.clearTimeout(timer);
      poller.stop();
    });
  },
});

/** An endpoint named in the options must exist and have a balance route. */
function checkEndpoints(pipeline: Pipeline, options: BalanceOptions): void {
  for (const name of Object.keys(options.endpoints)) {
    const path = `endpoints.${name}`;
    const endpoint = pipeline.endpoints.find((e) => e.name === name);
    if (!endpoint) throw new SwitchyardError('config', `${PLUGIN_NAME}: ${path}: unknown endpoint "${name}" (known: ${pipeline.endpoints.map((e) => `"${e.name}"`).join(', ')})`, { code: 'SWITCHYARD_ERR_CONFIG', path });
    const provider = pipeline.providers.get(endpoint.provider);
    if (options.endpoints[name].poll && provider && !provider.balance) {
      throw new SwitchyardError('config', `${PLUGIN_NAME}: ${path}: provider "${endpoint.provider}" has no balance route (DeepSeek and Moonshot have one)`, { code: 'SWITCHYARD_ERR_CONFIG', path });
    }
  }
}
