/** The dialects a gateway serves unless told otherwise. */
import type { Dialect } from '../dialect.js';
import { openaiChatDialect } from './openai-chat.js';

export const DEFAULT_DIALECTS: readonly Dialect[] = [openaiChatDialect];

export { openaiChatDialect };
