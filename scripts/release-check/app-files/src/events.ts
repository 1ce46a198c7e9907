// The typed event bus as a user observes a pipeline: `on` / `emit` must exist under nodenext.
import { createPipeline, type SwitchyardEvents } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';

const pipeline = createPipeline({
  endpoints: [{ name: 'openai', provider: 'openai', apiKey: 'sk-example' }],
  models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }] },
  plugins: [...openai],
});
const seen: string[] = [];
pipeline.events.on('failover', (event) => seen.push(`${event.from.id} -> ${event.to.id}: ${event.error.kind}`));
pipeline.events.on('request:end', (event: SwitchyardEvents['request:end'][0]) => seen.push(event.requestId));
pipeline.events.emit('breaker:close', { deployment: 'openai/gpt-4o-mini' });
console.log(`events typed: ${pipeline.events.listenerCount('failover')} failover listener`);
await pipeline.close();
