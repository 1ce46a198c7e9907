/**
 * The parts of the OpenAI Responses API wire format the gateway reads and writes (the `openai`
 * SDK's `resources/responses` types are the reference). Only what the gateway touches is typed;
 * everything else travels as it came.
 */

export type Json = Record<string, unknown>;

/** An item of `input` or `output`: a message, a function call or its output, a reasoning item, or a tool item only OpenAI runs. */
export interface ResponseItem {
  type: string;
  id?: string;
  [field: string]: unknown;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs?: unknown[];
}

export interface OutputMessage extends ResponseItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: ItemStatus;
  content: (OutputText | { type: 'refusal'; refusal: string })[];
}

export interface FunctionCallItem extends ResponseItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: ItemStatus;
}

export interface ReasoningItem extends ResponseItem {
  type: 'reasoning';
  id: string;
  summary: { type: 'summary_text'; text: string }[];
  content?: { type: 'reasoning_text'; text: string }[];
  encrypted_content?: string | null;
  status?: ItemStatus;
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type ResponseStatus = 'completed' | 'failed' | 'in_progress' | 'incomplete';

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** A `response` object (the JSON answer, and the snapshot inside lifecycle events). */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  model: string;
  output: ResponseItem[];
  usage?: ResponseUsage | null;
  [field: string]: unknown;
}
