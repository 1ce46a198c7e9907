/**
 * The chaos tests' pipeline: a primary of one vendor that answers with a fault, a backup of
 * another vendor that answers well, the real providers, on the msw bridge and virtual time.
 */
import { createPipeline, seededRandom, VirtualClock, type Pipeline, type Plugin, type ProviderV1 } from '@switchyard/core';
import { createMswDispatcher, vendorFaults, type FaultName, type Vendor } from '../../src/index.js';

const BASE: Record<Vendor, string> = { openai: 'http://primary.test/v1', anthropic: 'http://primary.test/v1', gemini: 'http://primary.test/v1beta' };
const MODEL: Record<Vendor, string> = { openai: 'gpt-4o-mini', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' };

export interface FailoverRigOptions {
  seed: number;
  /** The primary's and the backup's API keys. */
  keys: readonly [string, string];
  plugins: (Plugin | ProviderV1)[];
}

export function failoverRig(vendor: Vendor, fault: FaultName, { seed, keys, plugins }: FailoverRigOptions) {
  const clock = new VirtualClock();
  const random = seededRandom(seed);
  const backupVendor: Vendor = vendor === 'anthropic' ? 'openai' : 'anthropic';
  const primary = vendorFaults(vendor, { baseUrl: BASE[vendor], clock, random });
  const backup = vendorFaults(backupVendor, { baseUrl: 'http://backup.test/v1', clock, random });
  const primaryHandler = primary.handler(fault, { tokens: 12 });
  const backupHandler = backup.ok({ tokens: 12 });
  const pipeline: Pipeline = createPipeline({
    clock,
    random,
    dispatcher: createMswDispatcher([primaryHandler, backupHandler]),
    endpoints: [
      { name: 'primary', provider: vendor, baseUrl: BASE[vendor], apiKey: keys[0] },
      { name: 'backup', provider: backupVendor, baseUrl: 'http://backup.test/v1', apiKey: keys[1] },
    ],
    models: {
      chat: [
        { endpoint: 'primary', model: MODEL[vendor] },
        { endpoint: 'backup', model: MODEL[backupVendor], priority: 1, capabilities: ['tools', 'prefill', 'stream'] },
      ],
    },
    plugins,
  });
  return { clock, pipeline, primaryHandler, backupHandler };
}
