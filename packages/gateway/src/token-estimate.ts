/**
 * A rough input token count for a unified request, for count endpoints whose targets cannot
 * count exactly: about four characters a token for text, tool arguments and tool schemas; a
 * fixed share for each image, file or audio part, whose real cost depends on its size; a few
 * tokens of framing per message. It is marked as an estimate wherever it is answered.
 */
import type { ChatRequest } from '@switchyard/core';

const CHARS_PER_TOKEN = 4;
/** About what a mid-sized image costs at Anthropic and OpenAI. */
const MEDIA_TOKENS = 1600;
const MESSAGE_TOKENS = 4;

export function estimateInputTokens(request: ChatRequest): number {
  let chars = 0;
  let tokens = 0;
  for (const message of request.messages) {
    tokens += MESSAGE_TOKENS;
    const { content } = message;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === 'text' && typeof part.text === 'string') chars += part.text.length;
        else tokens += MEDIA_TOKENS;
      }
    }
    for (const call of message.tool_calls ?? []) chars += call.function.name.length + call.function.arguments.length;
  }
  for (const tool of request.tools ?? []) chars += JSON.stringify(tool.function).length;
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}
