// A pipeline that is never asked anything, with active health probes running in the background:
// nothing is in flight, so the process must be free to exit on its own.
import { createPipeline } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { health } from '@switchyard/plugin-health';

createPipeline({
  endpoints: [{ name: 'openai', provider: 'openai', baseUrl: process.env.PRIMARY_URL, apiKey: 'sk-example' }],
  models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }] },
  plugins: [...openai, health({ probes: { reachability: { intervalMs: 60_000 } } })],
});
console.log('idle pipeline created');
