/** What a provider author supplies: recorded answers in their vendor's own wire format. */

export interface HttpSample {
  status?: number;
  headers?: Record<string, string>;
  /** A JSON body (serialised for you) or raw text. */
  body: unknown;
}

export interface StreamSample {
  /** The raw SSE text exactly as the vendor sends it (`data: …\n\n`, `event:` lines, terminators). */
  sse: string;
  headers?: Record<string, string>;
}

export interface ExpectedToolCall {
  name: string;
  /** The parsed arguments. */
  arguments: unknown;
}

export type ErrorSampleKind = 'rate-limit' | 'server' | 'overloaded' | 'auth' | 'payment' | 'context-length' | 'content-filter' | 'bad-request' | 'not-found';

export interface ErrorSample extends HttpSample {
  status: number;
  /** Expected `retryAfterMs` (for a 429 with a delay in the headers or body). */
  retryAfterMs?: number;
}

/**
 * Where the vendor's wire request carries each part of the chat request the suite sends
 * (`CONFORMANCE_REQUEST`: a system prompt, a user turn, an assistant tool call and its result,
 * one tool, a token limit and a temperature). Paths are JSON paths into the request body:
 * `system`, `messages[0].content`, `generationConfig.maxOutputTokens`.
 */
export interface RequestMapping {
  /** The request path after the endpoint's base URL, e.g. `/chat/completions`. */
  path: string;
  /** Headers the vendor needs besides auth (lower-case names), e.g. `{ 'anthropic-version': '2023-06-01' }`. */
  headers?: Record<string, string>;
  body: {
    /** Must hold the system prompt text: "You are a terse assistant." */
    system: string;
    /** Must hold the first user turn's text: "What is the weather in Oslo?" */
    user: string;
    /** Must hold the token limit: 123. */
    maxTokens: string;
    /** Must hold the temperature: 0.25. */
    temperature?: string;
    /** Must hold the tool's name: "lookup_weather". */
    toolName?: string;
    /** Must hold the tool result's text: "Sunny, 21 C". */
    toolResult?: string;
  };
  /**
   * Role markers the wire format must carry, JSON path → value, for the four turns of the
   * suite's request (system, user, assistant tool call, tool result), e.g.
   * `{ 'messages[0].role': 'system', 'messages[3].role': 'tool' }` or Gemini's
   * `{ 'contents[1].role': 'model' }`.
   */
  roles?: Record<string, string>;
}

/** Answers that end for another reason than "stop", each with the finish reason it must map to. */
export type FinishReasonSamples = Partial<Record<'length' | 'content_filter', { response?: HttpSample; stream?: StreamSample }>>;

export interface ConformanceSamples {
  /** The upstream model name used in the deployment. */
  model: string;
  /** The API key the pipeline sends; the suite checks it never appears in an error. */
  apiKey?: string;
  /** Endpoint settings the provider needs (apiVersion, options). */
  endpoint?: { apiVersion?: string; options?: Record<string, unknown>; headers?: Record<string, string> };
  text: {
    response: HttpSample;
    expectedText: string;
    stream: StreamSample;
    /** The streamed answer's text when it differs from the non-streamed one (separate recordings). */
    expectedStreamText?: string;
  };
  toolCall?: { response: HttpSample; stream?: StreamSample; expected: ExpectedToolCall; /** When the stream is a different recording. */ expectedStream?: ExpectedToolCall };
  /** One sample per error class the vendor has. */
  errors: Partial<Record<ErrorSampleKind, ErrorSample>>;
  /** How the request the suite sends must look on the wire. */
  request: RequestMapping;
  /**
   * The vendor's error event inside a 200 stream (`event: error`, `{"type":"error"}`), sent
   * after some content; `kinds` lists what it may become (e.g. `['overloaded', 'server']`).
   */
  streamError?: { stream: StreamSample; kinds: string[] };
  finishReasons?: FinishReasonSamples;
  /** A stream cut before its finish signal; default: the first half of `text.stream`'s events. */
  cutStream?: StreamSample;
}

/** Splits SSE text into events (keeping each event's own framing). */
export function sseEvents(sse: string): string[] {
  const events: string[] = [];
  const re = /([\s\S]*?)(\r\n\r\n|\n\n|\r\r)/g;
  let m: RegExpExecArray | null;
  let last = 0;
  while ((m = re.exec(sse))) {
    events.push(m[0]);
    last = re.lastIndex;
  }
  if (last < sse.length && sse.slice(last).trim()) events.push(sse.slice(last));
  return events;
}

/** The first half of a stream's events: content has started, the finish signal has not arrived. */
export function defaultCutStream(stream: StreamSample): StreamSample {
  const events = sseEvents(stream.sse);
  return { ...stream, sse: events.slice(0, Math.max(1, Math.floor(events.length / 2))).join('') };
}
