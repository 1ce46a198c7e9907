import { expect, it } from 'vitest';
import { createMswDispatcher, faults, healthyText } from '@switchyard/chaos';
import { createSupportBot } from '../src/app.js';

it('answers from Claude while OpenAI is rate-limited, without hammering OpenAI', async () => {
  const openai = faults.openai.rateLimited({ retryAfterS: 60 });
  const bot = createSupportBot({ dispatcher: createMswDispatcher([openai, faults.anthropic.ok()]) });
  expect(await bot.answer('Where is my order?')).toBe(healthyText());
  expect(openai.fault.seen).toBe(1);
  await bot.close();
});

it('answers after one 500 from OpenAI (retried on the same vendor)', async () => {
  const flaky = faults.openai.serverError({ times: 1 });
  const bot = createSupportBot({ dispatcher: createMswDispatcher([flaky, faults.openai.ok(), faults.anthropic.overloaded()]) });
  expect(await bot.answer('Hi')).toBe(healthyText());
  expect(flaky.fault.answered).toBe(1);
  await bot.close();
});

it('degrades politely when every vendor is down', async () => {
  const bot = createSupportBot({ dispatcher: createMswDispatcher([faults.openai.unavailable(), faults.anthropic.overloaded()]) });
  expect(await bot.answer('Hi')).toBe('Sorry, we are having trouble right now.');
  await bot.close();
});
