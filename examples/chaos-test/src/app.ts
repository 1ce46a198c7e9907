/** The application under test: a support bot that must answer even when a vendor fails. */
import { createPipeline, type PipelineOptions } from '@switchyard/core';
import { providers as openai } from '@switchyard/provider-openai';
import { providers as anthropic } from '@switchyard/provider-anthropic';
import { retry } from '@switchyard/plugin-retry';

export function createSupportBot(options: Pick<PipelineOptions, 'dispatcher' | 'clock'> = {}) {
  const pipeline = createPipeline({
    ...options,
    endpoints: [
      { name: 'openai', provider: 'openai', apiKey: process.env.OPENAI_API_KEY ?? 'sk-test' },
      { name: 'claude', provider: 'anthropic', apiKey: process.env.ANTHROPIC_API_KEY ?? 'sk-ant-test' },
    ],
    models: { support: [{ endpoint: 'openai', model: 'gpt-4o-mini' }, { endpoint: 'claude', model: 'claude-sonnet-4-5' }] },
    plugins: [...openai, ...anthropic, retry()],
  });
  return {
    async answer(question: string): Promise<string> {
      try {
        const r = await pipeline.chat({ model: 'support', messages: [{ role: 'user', content: question }] });
        return r.choices[0].message.content ?? '';
      } catch {
        return 'Sorry, we are having trouble right now.';
      }
    },
    close: () => pipeline.close(),
  };
}
