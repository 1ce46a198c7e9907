/** The dialects a gateway serves unless told otherwise. */
import type { DialectV1 } from '@switchyard/core/dialect';
import { anthropicMessagesDialect } from '@switchyard/provider-anthropic/dialect';
import { openaiChatDialect } from './openai-chat.js';
import { openaiResponsesDialect } from './openai-responses/index.js';

export const DEFAULT_DIALECTS: readonly DialectV1[] = [openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect];

export { openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect };
