/** The dialects a gateway serves unless told otherwise. */
import type { Dialect } from '../dialect.js';
import { anthropicMessagesDialect } from './anthropic-messages/index.js';
import { openaiChatDialect } from './openai-chat.js';
import { openaiResponsesDialect } from './openai-responses/index.js';

export const DEFAULT_DIALECTS: readonly Dialect[] = [openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect];

export { openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect };
