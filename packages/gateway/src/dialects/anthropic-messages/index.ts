/**
 * The Anthropic Messages dialect: what Anthropic SDK clients and coding agents (Claude Code
 * with `ANTHROPIC_BASE_URL`) speak. `POST /v1/messages` and `POST /v1/messages/count_tokens`;
 * the gateway key as `x-api-key` (`ANTHROPIC_API_KEY`) or `Authorization: Bearer`
 * (`ANTHROPIC_AUTH_TOKEN`); errors in Anthropic's shape and statuses.
 */
import { ANTHROPIC_MESSAGES } from '@switchyard/core/wire';
import { bearerCredential, type Dialect } from '../../dialect.js';
import { countTokens } from './count-tokens.js';
import { messagesStreamError, renderMessagesError } from './errors.js';
import { messages } from './messages-route.js';

export const anthropicMessagesDialect: Dialect = {
  id: ANTHROPIC_MESSAGES,
  routes: [
    { method: 'POST', path: '/v1/messages', handle: messages },
    { method: 'POST', path: '/v1/messages/count_tokens', handle: countTokens },
  ],
  credential(req) {
    const key = req.headers['x-api-key'];
    return typeof key === 'string' && key.length > 0 ? key : bearerCredential(req);
  },
  renderError: renderMessagesError,
  streamError: messagesStreamError,
};
