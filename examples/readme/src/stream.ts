// The README's streaming use: `pipeline.stream()` resolves at the commit point (the first token)
// and yields typed parts. PRIMARY_URL is an OpenAI-shaped server that streams.
import { createPipeline } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { retry } from '@switchyard/plugin-retry';

const pipeline = createPipeline({
  endpoints: [{ name: 'openai', provider: 'openai', baseUrl: process.env.PRIMARY_URL, apiKey: process.env.OPENAI_API_KEY ?? 'sk-example' }],
  models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }] },
  plugins: [...openai, retry()],
});
const stream = await pipeline.stream({ model: 'chat', messages: [{ role: 'user', content: 'Count to three.' }] });
let text = '';
for await (const part of stream) {
  if (part.type === 'text-delta') text += part.text;
  if (part.type === 'error') throw part.error;
  if (part.type === 'finish') console.log(`${text} [finish: ${part.finishReason}, from ${stream.info.endpoint}]`);
}
await pipeline.close();
