import { it, expect } from 'vitest';
import { runSimulation } from '/work/main/packages/chaos/src/simulate/run-simulation.js';
import { providers as openai } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { retry } from '@switchyard/plugin-retry';
it('smoke', async () => {
  const report = await runSimulation({
    duration: '1d', seed: 3,
    traffic: { every: '30s', streamShare: 0.3 },
    endpoints: [
      { name: 'primary', provider: 'openai', models: ['gpt-4o-mini'], latency: { median: '800ms' }, tokenDelay: '20ms',
        faults: [{ fault: 'unavailable', when: { between: ['2h', '5h'] } }, { fault: 'server-error', when: { brownout: 0.2 } }] },
      { name: 'backup', provider: 'anthropic', models: ['claude'], latency: '1s' },
    ],
  }, { providers: [...openai, ...anthropic], plugins: [retry()] });
  const { buckets, ...rest } = report;
  console.log(JSON.stringify(rest, null, 1));
});
