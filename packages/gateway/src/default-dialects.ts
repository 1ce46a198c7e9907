/** The dialects a gateway serves unless told otherwise: each wire format's own package exports its dialect. */
import type { DialectV1 } from '@switchyard/core/dialect';
import { anthropicMessagesDialect } from '@switchyard/provider-anthropic/dialect';
import { openaiChatDialect, openaiResponsesDialect } from '@switchyard/provider-openai/dialect';

export const DEFAULT_DIALECTS: readonly DialectV1[] = [openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect];

export { openaiChatDialect, anthropicMessagesDialect, openaiResponsesDialect };
