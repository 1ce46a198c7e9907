/**
 * The one runner every dialect's routes go through: decode → pipeline → same-format fast path
 * → encode → errors, for JSON answers and streams (stream-answer.ts), token counts, embeddings,
 * model lists and a dialect's own routes. A dialect only translates; failover, deadlines, the
 * commit point, budgets, tenants, cache, ledger, metrics and logs are the pipeline's and the
 * gateway's, the same for every dialect.
 */
import { SwitchyardError } from '@switchyard/core';
import { wireBodyOf } from '@switchyard/core/wire';
import type { DecodedRequest, DialectCall, DialectContext, DialectV1 } from '@switchyard/core/dialect';
import { ownerOf } from './caller-gate.js';
import { countInputTokens, TOKEN_COUNT_HEADER } from './count-tokens.js';
import type { RouteMatch } from './dialect-routes.js';
import { renderError } from './dialect.js';
import type { Exchange } from './exchange.js';
import { infoHeaders, sendError, sendJson, sendJsonText } from './http-reply.js';
import { visibleModels } from './models.js';
import { errorReply, replyWithError } from './openai-errors.js';
import { serveStream } from './stream-answer.js';

export function dialectContext(x: Exchange): DialectContext {
  return {
    store: x.pipeline.store,
    clock: x.pipeline.clock,
    caller: x.call.caller,
    owner: ownerOf(x.call.caller),
    requestId: x.call.requestId ?? '',
    limits: x.server.limits,
    storeTtlMs: x.server.responseTtlMs,
    storeCaps: x.server.responseStore,
    warn: (fields, message) => x.logger.warn(fields, message),
  };
}

export async function runRoute(x: Exchange, match: RouteMatch, body: unknown): Promise<void> {
  const { dialect, route } = match;
  const call: DialectCall = { route: route!, headers: x.req.headers, query: x.query, params: match.params, body, bodyText: x.bodyText, bodyBytes: x.bodyBytes };
  try {
    switch (route!.operation) {
      case 'generate':
        return await generate(x, dialect, call);
      case 'count-tokens':
        return await countTokens(x, dialect, call);
      case 'embed': {
        const codec = required(dialect, 'embeddings');
        const response = await x.pipeline.embeddings(codec.decode(call), x.call);
        return sendJson(x.res, 200, codec.encode(response, call), infoHeaders(response.switchyard));
      }
      case 'models':
        return sendJson(x.res, 200, required(dialect, 'models').list(await visibleModels(x.pipeline, x.call.caller), x.startedAt));
      case 'model':
        return await model(x, dialect, call);
      case 'custom': {
        const reply = await route!.handle!(call, dialectContext(x));
        return sendJson(x.res, reply.status, reply.body, { ...reply.headers });
      }
    }
  } catch (error) {
    replyWithError(x, error);
  }
}

function required<K extends 'embeddings' | 'models' | 'countTokens'>(dialect: DialectV1, part: K): NonNullable<DialectV1[K]> {
  const codec = dialect[part];
  if (!codec) throw new SwitchyardError('config', `dialect ${dialect.id} has a route that needs its ${part} codec`, { code: 'SWITCHYARD_ERR_CONFIG' });
  return codec;
}

/**
 * Not async: a dialect that decodes synchronously costs no await, and a stream is `serveStream`'s
 * own promise (an async layer returning it cost a promise and two microtasks per request). A
 * decoder that throws throws to `runRoute`, which answers the error.
 */
function generate(x: Exchange, dialect: DialectV1, call: DialectCall): Promise<void> {
  const decoding = dialect.decodeRequest(call, dialectContext(x));
  if (typeof (decoding as Partial<PromiseLike<unknown>>).then === 'function') return (decoding as Promise<DecodedRequest>).then((decoded) => answer(x, dialect, decoded));
  return answer(x, dialect, decoding as DecodedRequest);
}

function answer(x: Exchange, dialect: DialectV1, decoded: DecodedRequest): Promise<void> {
  const inClientTerms = decoded.inClientTerms ? (error: unknown) => decoded.inClientTerms!(error) : undefined;
  if (decoded.stream) return serveStream(x, decoded.request, (info) => dialect.createStreamEncoder(info, decoded), inClientTerms, dialect.streamFraming?.(decoded));
  return answerWhole(x, dialect, decoded, inClientTerms);
}

async function answerWhole(x: Exchange, dialect: DialectV1, decoded: DecodedRequest, inClientTerms: ((error: unknown) => unknown) | undefined): Promise<void> {
  try {
    const response = await x.pipeline.chat(decoded.request, x.call);
    // The same-format fast path: a vendor answer in the client's format goes out as the vendor wrote it.
    let text = wireBodyOf(response, dialect.id) ?? JSON.stringify(dialect.encodeResponse(response, decoded));
    if (decoded.settle) text = (await decoded.settle(text, response)) ?? text;
    sendJsonText(x.res, 200, text, infoHeaders(response.switchyard));
  } catch (error) {
    replyWithError(x, inClientTerms ? inClientTerms(error) : error);
  }
}

async function countTokens(x: Exchange, dialect: DialectV1, call: DialectCall): Promise<void> {
  const codec = required(dialect, 'countTokens');
  const { request, inClientTerms } = codec.decode(call);
  const count = await countInputTokens(x, request, inClientTerms);
  if (x.res.destroyed) return;
  const headers: Record<string, string> = count.endpoint ? { [TOKEN_COUNT_HEADER]: 'exact', 'x-switchyard-endpoint': count.endpoint } : { [TOKEN_COUNT_HEADER]: 'estimate' };
  sendJson(x.res, 200, codec.encode({ tokens: count.tokens, exact: count.endpoint !== undefined }), headers);
}

async function model(x: Exchange, dialect: DialectV1, call: DialectCall): Promise<void> {
  const codec = required(dialect, 'models');
  let id: string;
  try {
    id = decodeURIComponent(call.params.model ?? '');
  } catch {
    return sendError(x.res, renderError(dialect, errorReply(400, 'the model id in the URL is not valid percent-encoding', 'invalid_request_error', 'invalid_url', 'model')));
  }
  if ((await visibleModels(x.pipeline, x.call.caller)).includes(id)) return sendJson(x.res, 200, codec.one(id, x.startedAt));
  sendError(x.res, renderError(dialect, errorReply(404, `The model '${id}' does not exist`, 'invalid_request_error', 'model_not_found', 'model')));
}

