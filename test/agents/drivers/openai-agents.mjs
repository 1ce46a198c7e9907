// One turn of a tool-using session with the OpenAI Agents SDK (`run` streaming, its default
// Responses model, tracing off), run from the pinned SDK folder (the test passes this file as
// `node --input-type=module -e` with that folder as the working directory). The run's history
// lives in $SESSION_FILE between turns. Prints the answer's text and any error.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, tool, user } from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

const { GATEWAY_URL, GATEWAY_KEY, MODEL, PROMPT, SESSION_FILE, NOTES_DIR } = process.env;
setTracingDisabled(true);
setDefaultOpenAIClient(new OpenAI({ baseURL: `${GATEWAY_URL}/v1`, apiKey: GATEWAY_KEY, maxRetries: 0 }));
const readFile = tool({
  name: 'read_file',
  description: 'Reads a file of the working folder and returns its text.',
  parameters: z.object({ path: z.string().describe('the file to read') }),
  execute: async ({ path }) => readFileSync(path.startsWith('/') ? path : `${NOTES_DIR}/${path}`, 'utf8'),
});
const agent = new Agent({ name: 'notes', instructions: 'Answer from the files you read.', tools: [readFile], model: MODEL });
const history = existsSync(SESSION_FILE) ? JSON.parse(readFileSync(SESSION_FILE, 'utf8')) : [];
try {
  const result = await run(agent, [...history, user(PROMPT)], { stream: true });
  for await (const text of result.toTextStream()) process.stdout.write(text);
  await result.completed;
  process.stdout.write('\n');
  writeFileSync(SESSION_FILE, JSON.stringify(result.history));
} catch (error) {
  process.stderr.write(`run error: ${error?.message ?? error}\n`);
  process.exitCode = 1;
}
