/**
 * The OpenAI dialect: Chat Completions, embeddings and the model list, the shapes every OpenAI
 * SDK speaks. Its unified types are the pipeline's own, so requests go in as they came.
 */
import { OPENAI_CHAT_COMPLETION } from '@switchyard/core';
import { chatCompletions } from '../chat-completions.js';
import type { Dialect } from '../dialect.js';
import { embeddings } from '../embeddings.js';
import { sendError, sendJson } from '../http-reply.js';
import { modelEntry, modelList, visibleModels } from '../models.js';
import { errorReply } from '../openai-errors.js';
import { sseErrorEvent } from '../openai-wire.js';

export const openaiChatDialect: Dialect = {
  id: OPENAI_CHAT_COMPLETION,
  routes: [
    { method: 'POST', path: '/v1/chat/completions', handle: chatCompletions },
    { method: 'POST', path: '/v1/embeddings', handle: embeddings },
    { method: 'GET', path: '/v1/models', handle: async (x) => sendJson(x.res, 200, await modelList(x.pipeline, x.startedAt, x.call.caller)) },
    {
      method: 'GET',
      path: '/v1/models/',
      async handle(x, _body, param) {
        let id: string;
        try {
          id = decodeURIComponent(param ?? '');
        } catch {
          return sendError(x.res, errorReply(400, 'the model id in the URL is not valid percent-encoding', 'invalid_request_error', 'invalid_url', 'model'));
        }
        if ((await visibleModels(x.pipeline, x.call.caller)).includes(id)) return sendJson(x.res, 200, modelEntry(id, x.startedAt));
        sendError(x.res, errorReply(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model_not_found', 'model'));
      },
    },
  ],
  streamError: (reply) => sseErrorEvent(reply.body),
};
