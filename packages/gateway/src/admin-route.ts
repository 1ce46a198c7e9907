/**
 * The admin API's HTTP side: `/switchyard/keys…` and `/switchyard/teams…`, behind an admin key
 * (`server.adminKeys`). The gateway imports no plugin: it hands each call to the pipeline's
 * `SERVICE.tenants` (@switchyard/plugin-tenants), which owns keys, teams and their rules, and
 * writes the answer (or its coded error) as JSON.
 */
import { SERVICE } from '@switchyard/contracts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { getService, type Pipeline } from '@switchyard/core';
import { sendError, sendJson } from './http-reply.js';
import { errorReply, replyForError, type ErrorReplyOptions } from './openai-errors.js';
import { BodyError, readJsonBody } from './read-body.js';

/** Bodies of admin calls are small documents. */
const MAX_ADMIN_BODY_BYTES = 64 * 1024;

export async function adminRoute(pipeline: Pipeline, req: IncomingMessage, res: ServerResponse, path: string, errorOptions: ErrorReplyOptions): Promise<void> {
  const service = getService(pipeline, SERVICE.tenants);
  if (!service) return sendError(res, errorReply(404, 'no key management: add "@switchyard/plugin-tenants" to the plugins', 'invalid_request_error', 'tenants_not_configured'));
  const method = req.method ?? 'GET';
  const url = new URL(req.url ?? path, 'http://gateway.invalid');
  let body: unknown;
  try {
    // `curl -X POST …/revoke` sends no body at all: that is no body, not invalid JSON.
    if (method === 'POST' || method === 'PATCH' || method === 'PUT') body = (await readJsonBody(req, MAX_ADMIN_BODY_BYTES, { allowEmpty: true })).value;
    const answer = await service.admin({ method, path, query: Object.fromEntries(url.searchParams), body });
    res.setHeader('cache-control', 'no-store');
    sendJson(res, answer.status, answer.body);
  } catch (error) {
    sendError(res, error instanceof BodyError ? error.reply : replyForError(error, errorOptions));
  }
}
