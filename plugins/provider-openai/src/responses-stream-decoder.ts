/**
 * Responses API stream events → unified stream parts. The decoder declares its wire format, so
 * when the client spoke the Responses API too the core keeps each event's text with the part it
 * produced and the gateway forwards the events as they came (core's wire-events.ts).
 *
 * Each event produces at most one part: the text of an event travels with its first part only,
 * so a second part would look to the gateway like a part of another source (one it must
 * encode). The terminal event is one `finish` part with the usage inside it.
 */
import { type StreamDecoder, type StreamPart } from '@switchyard/core';
import { OPENAI_RESPONSES, sseEventNameAt, startsAt, type DecodedSseEvent } from '@switchyard/core/wire';
import { type ErrorRule } from '@switchyard/core/internal';
import { classifyStreamError } from './classify-error.js';
import { classifyResponseFailure } from './responses-errors.js';
import { keepFinalResponse } from './responses-final.js';
import { finishOf, responsesUsage } from './responses-response.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Structural events that add nothing to the parts (deltas aside, which carry only content). */
const UNREAD_EVENTS = new Set(['response.content_part.added', 'response.content_part.done', 'response.output_text.done', 'response.output_item.done', 'response.reasoning_summary_part.added', 'response.reasoning_summary_part.done', 'response.reasoning_summary_text.done', 'response.reasoning_text.done', 'response.function_call_arguments.done', 'response.in_progress']);

/** Most of a stream's events: recognized in place, without cutting their name out of the text. */
export const TEXT_DELTA_LINE = 'event: response.output_text.delta\n';

export class ResponsesStreamDecoder implements StreamDecoder {
  readonly wireFormat = OPENAI_RESPONSES;
  done = false;
  /** Output index of a function_call item → its unified call index. */
  private readonly calls = new Map<number, number>();
  private refusal = '';

  constructor(
    private readonly providerId: string,
    private readonly apiKey?: string,
    private readonly errorRules?: readonly ErrorRule[],
  ) {}

  push(event: DecodedSseEvent): StreamPart[] {
    if (!isObject(event.json)) return [];
    const data = event.json;
    const type = typeof data.type === 'string' ? data.type : event.event;
    switch (type) {
      case 'response.created': {
        const response = isObject(data.response) ? data.response : {};
        return [
          {
            type: 'response-metadata',
            ...(typeof response.id === 'string' ? { id: response.id } : {}),
            ...(typeof response.model === 'string' ? { model: response.model } : {}),
            ...(typeof response.created_at === 'number' ? { created: response.created_at } : {}),
          },
        ];
      }
      case 'response.output_text.delta':
        return typeof data.delta === 'string' && data.delta.length > 0 ? [{ type: 'text-delta', text: data.delta }] : [];
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return typeof data.delta === 'string' && data.delta.length > 0 ? [{ type: 'reasoning-delta', text: data.delta }] : [];
      case 'response.refusal.delta':
        if (typeof data.delta === 'string') this.refusal += data.delta;
        return [];
      case 'response.output_item.added': {
        const item = data.item;
        if (!isObject(item) || item.type !== 'function_call' || typeof data.output_index !== 'number') return [];
        const index = this.calls.size;
        this.calls.set(data.output_index, index);
        return [
          {
            type: 'tool-call-delta',
            index,
            ...(typeof item.call_id === 'string' ? { id: item.call_id } : {}),
            ...(typeof item.name === 'string' ? { name: item.name } : {}),
            argumentsDelta: typeof item.arguments === 'string' ? item.arguments : '',
          },
        ];
      }
      case 'response.function_call_arguments.delta': {
        const index = typeof data.output_index === 'number' ? this.calls.get(data.output_index) : undefined;
        return index !== undefined && typeof data.delta === 'string' && data.delta.length > 0 ? [{ type: 'tool-call-delta', index, argumentsDelta: data.delta }] : [];
      }
      case 'response.completed':
      case 'response.incomplete': {
        this.done = true;
        const response = isObject(data.response) ? data.response : {};
        const usage = responsesUsage(response.usage, response.output);
        const finishReason = finishOf(response, this.calls.size > 0);
        const meta: Json = {};
        if (isObject(response.incomplete_details)) meta.incomplete_details = response.incomplete_details;
        if (this.refusal) meta.refusal = this.refusal;
        const finish: StreamPart = {
          type: 'finish',
          finishReason,
          ...(usage ? { usage } : {}),
          ...(Object.keys(meta).length > 0 ? { providerMetadata: { [this.providerId]: meta } } : {}),
        };
        if (isObject(data.response)) keepFinalResponse(finish, data.response);
        return [finish];
      }
      case 'response.failed': {
        this.done = true;
        const response = isObject(data.response) ? data.response : {};
        return [{ type: 'error', error: classifyResponseFailure(this.providerId, response.error, this.apiKey, this.errorRules) }];
      }
      case 'error':
        // The type says `{code, message, param}`; some deployments nest them under `error`.
        return [{ type: 'error', error: isObject(data.error) ? classifyStreamError(this.providerId, data, this.apiKey, this.errorRules) : classifyResponseFailure(this.providerId, data, this.apiKey, this.errorRules) }];
      default:
        return [];
    }
  }

  end(): StreamPart[] {
    return [];
  }

  /**
   * After the commit point a Responses client needs only the events that end the answer, report
   * an error or number the function calls (the finish reason depends on them) decoded: deltas
   * and the content parts' and items' closings are forwarded unread. By the event line, which
   * comes first (JSON data has no raw newline): an event without one is read.
   */
  readAfterCommit(eventText: string): boolean {
    return this.readAfterCommitIn(eventText, 0);
  }

  readAfterCommitIn(text: string, start: number): boolean {
    if (startsAt(text, TEXT_DELTA_LINE, start)) return false;
    const name = sseEventNameAt(text, start);
    return name === undefined || !(name.endsWith('.delta') || UNREAD_EVENTS.has(name));
  }

  /**
   * The structural events yield no part, before the commit point too; so does an added item that
   * is not a function call (a message, a reasoning item): one whose text does not spell
   * `function_call` anywhere is not parsed to find that out.
   */
  partlessIn(text: string, start: number, end: number): boolean {
    if (startsAt(text, TEXT_DELTA_LINE, start)) return false;
    const name = sseEventNameAt(text, start);
    if (name === undefined) return false;
    if (UNREAD_EVENTS.has(name)) return true;
    if (name !== 'response.output_item.added') return false;
    const call = text.indexOf('function_call', start);
    return call < 0 || call >= end;
  }

}
