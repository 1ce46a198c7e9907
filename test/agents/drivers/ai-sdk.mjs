// One turn of a tool-using session with the Vercel AI SDK (streamText, its default tool loop),
// run from the pinned SDK folder (the test passes this file as `node --input-type=module -e`
// with that folder as the working directory, so bare imports resolve there). The conversation so
// far lives in $SESSION_FILE between turns. Prints the answer's text and any stream errors.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';

const { GATEWAY_URL, GATEWAY_KEY, PROVIDER, MODEL, PROMPT, SESSION_FILE, NOTES_DIR } = process.env;
const provider = PROVIDER === 'anthropic' ? createAnthropic({ baseURL: `${GATEWAY_URL}/v1`, apiKey: GATEWAY_KEY }) : createOpenAI({ baseURL: `${GATEWAY_URL}/v1`, apiKey: GATEWAY_KEY });
const messages = existsSync(SESSION_FILE) ? JSON.parse(readFileSync(SESSION_FILE, 'utf8')) : [];
messages.push({ role: 'user', content: PROMPT });
const read_file = tool({
  description: 'Reads a file of the working folder and returns its text.',
  inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string', description: 'the file to read' } }, required: ['path'], additionalProperties: false }),
  execute: async ({ path }) => readFileSync(path.startsWith('/') ? path : `${NOTES_DIR}/${path}`, 'utf8'),
});
const result = streamText({ model: provider(MODEL), system: 'Answer from the files you read.', messages, tools: { read_file }, stopWhen: stepCountIs(5), maxRetries: 0 });
let failed = false;
for await (const part of result.fullStream) {
  if (part.type === 'text-delta') process.stdout.write(part.text ?? part.delta ?? '');
  if (part.type === 'error') {
    failed = true;
    process.stderr.write(`stream error: ${part.error?.message ?? part.error}\n`);
  }
}
process.stdout.write('\n');
if (!failed) {
  messages.push(...(await result.response).messages);
  writeFileSync(SESSION_FILE, JSON.stringify(messages));
}
process.exitCode = failed ? 1 : 0;
