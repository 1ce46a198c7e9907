/** The dialects a gateway serves unless told otherwise. */
import type { DialectV1 } from '@switchyard/core/dialect';
import { anthropicMessagesDialect } from './anthropic-messages/index.js';
import { openaiChatDialect } from './openai-chat.js';
import { openaiResponsesDialect } from './openai-responses/index.js';

export const DEFAULT_DIALECTS: readonly DialectV1[] = [openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect];

export { openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect };
