/**
 * Stream parts → Gemini stream chunks, as SSE (`alt=sse`, what the SDKs ask for) or as the
 * default JSON array. A Gemini vendor's own chunks go out as it wrote them (core's
 * wire-events.ts); parts from vendors of other APIs are encoded: text and thoughts at once,
 * a function call whole once its arguments are complete, the finish with its usage at the end.
 */
import { type StreamInfo, type StreamPart, type Usage, type FinishReason } from '@switchyard/core';
import { wireTextOf } from '@switchyard/core/wire';
import type { GatewayErrorReply, StreamEncoder } from '@switchyard/core/dialect';
import type { GeminiPart } from '../wire-types.js';
import { functionCallPart, geminiChunk } from './encode-response.js';
import { geminiErrorBody } from './errors.js';

interface OpenCall {
  id?: string;
  name: string;
  args: string;
}

/** The JSON of each `data:` record in a run of SSE text. */
function dataOf(sse: string): string[] {
  const out: string[] = [];
  for (const record of sse.split(/\n\n/)) {
    const data = record.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(line.charAt(5) === ' ' ? 6 : 5)).join('\n');
    if (data) out.push(data);
  }
  return out;
}

export class GeminiStreamEncoder implements StreamEncoder {
  private readonly calls = new Map<number, OpenCall>();
  private finish: { reason: FinishReason | null; usage?: Usage } | undefined;
  private usage: Usage | undefined;
  private sent = 0;
  private model: string;
  /** The vendor's response id; else one made for the first chunk this encoder writes itself (a pass-through mostly writes none). */
  private id: string | undefined;

  constructor(
    info: StreamInfo,
    private readonly sse: boolean,
  ) {
    this.model = info.model;
  }

  encode(part: StreamPart): string {
    const wire = wireTextOf(part);
    if (wire !== undefined) {
      if (part.type === 'finish') this.finish = undefined;
      return this.sse ? wire : dataOf(wire).map((json) => this.element(json)).join('');
    }
    switch (part.type) {
      case 'response-metadata':
        if (part.model) this.model = part.model;
        if (part.id) this.id = part.id;
        return '';
      case 'text-delta':
        return part.text ? this.chunk([{ text: part.text }]) : '';
      case 'reasoning-delta':
        return part.text ? this.chunk([{ text: part.text, thought: true }]) : '';
      case 'tool-call-delta': {
        const open = this.calls.get(part.index);
        if (open) open.args += part.argumentsDelta;
        else this.calls.set(part.index, { id: part.id, name: part.name ?? '', args: part.argumentsDelta });
        return '';
      }
      case 'usage':
        this.usage = part.usage;
        return '';
      case 'finish':
        this.finish = { reason: part.finishReason, usage: part.usage ?? this.usage };
        return '';
      default:
        return '';
    }
  }

  end(): string {
    let out = '';
    if (this.finish || this.calls.size > 0) {
      const parts: GeminiPart[] = [...this.calls.values()].map((call) => functionCallPart(call.id, call.name, call.args));
      out += this.chunk(parts, { reason: this.finish?.reason ?? 'stop', usage: this.finish?.usage ?? this.usage });
    }
    return out + (this.sse ? '' : this.sent === 0 ? '[]' : ']');
  }

  fail(reply: GatewayErrorReply): string {
    const error = JSON.stringify(geminiErrorBody(reply));
    return this.sse ? `data: ${error}\n\n` : this.element(error) + ']';
  }

  private chunk(parts: GeminiPart[], finish?: { reason: FinishReason | null; usage?: Usage }): string {
    const json = JSON.stringify(geminiChunk(parts, this.model, (this.id ??= `gw-${Date.now().toString(36)}`), finish));
    return this.sse ? `data: ${json}\n\n` : this.element(json);
  }

  /** One element of the JSON array stream (`[` before the first, `,` between). */
  private element(json: string): string {
    return (this.sent++ === 0 ? '[' : ',\n') + json;
  }
}
