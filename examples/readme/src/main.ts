// The root README's example, with the two vendors' base URLs taken from the environment so it
// can run against loopback servers: PRIMARY_URL (OpenAI-shaped) and FALLBACK_URL (Anthropic).
import { createPipeline } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { retry } from '@switchyard/plugin-retry';
import { circuitBreaker } from '@switchyard/plugin-circuit-breaker';

const pipeline = createPipeline({
  endpoints: [
    { name: 'openai', provider: 'openai', baseUrl: process.env.PRIMARY_URL, apiKey: process.env.OPENAI_API_KEY ?? 'sk-example' },
    { name: 'claude', provider: 'anthropic', baseUrl: process.env.FALLBACK_URL, apiKey: process.env.ANTHROPIC_API_KEY ?? 'sk-ant-example' },
  ],
  models: { chat: [{ endpoint: 'openai', model: 'gpt-4o-mini' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
  plugins: [...openai, ...anthropic, retry(), circuitBreaker()],
});
const answer = await pipeline.chat({ model: 'chat', messages: [{ role: 'user', content: 'Hi!' }] });
console.log(`${answer.choices[0].message.content} (from ${answer.switchyard.endpoint} after ${answer.switchyard.attempts} attempts)`);
