/**
 * Unified request, response and stream types. The request and response follow the OpenAI Chat
 * Completions shape (what every gateway client already speaks); Switchyard's own data lives
 * under `switchyard` and vendor-specific data under `providerMetadata[vendor]`.
 */
import type { ErrorRule } from './error-rules.js';

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool';

export interface TextContentPart { type: 'text'; text: string }
export interface ImageContentPart { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } }
export type ContentPart = TextContentPart | ImageContentPart | { type: string; [key: string]: unknown };

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: Role;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  /** Reasoning text some vendors return (DeepSeek `reasoning_content`, Anthropic thinking). */
  reasoning_content?: string;
  /** Vendor data that must travel back on the next turn (Gemini thoughtSignature, Anthropic thinking signatures). */
  providerMetadata?: ProviderMetadata;
}

export interface ToolDefinition {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export type ToolChoice = 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; json_schema: { name: string; schema?: Record<string, unknown>; strict?: boolean; description?: string } };

/** Our own per-request hints; never sent upstream. */
export interface SwitchyardRequestOptions {
  tier?: string;
  /** 0 = cheapest acceptable, 1 = best quality regardless of cost. */
  costTolerance?: number;
  tags?: Record<string, string>;
  /** `false` opts this request out of the response cache. */
  cache?: boolean;
  /** Conversation id for sticky routing. */
  conversationId?: string;
  /** Per-request overrides of the streaming limits (milliseconds). */
  timeouts?: Partial<AttemptTimeouts>;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  tool_choice?: ToolChoice;
  parallel_tool_calls?: boolean;
  response_format?: ResponseFormat;
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  stop?: string | string[];
  seed?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  user?: string;
  metadata?: Record<string, string>;
  reasoning_effort?: string;
  switchyard?: SwitchyardRequestOptions;
  /** Unknown OpenAI fields pass through to OpenAI-compatible vendors untouched. */
  [extra: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | 'error' | 'other';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
  /** Calls of tools the vendor ran itself and bills per call, by kind (`web_search: 3`): priced by `Price.perCall`. */
  server_tool_calls?: Record<string, number>;
}

export type ProviderMetadata = Record<string, Record<string, unknown>>;

export interface ResponseMessage {
  role: 'assistant';
  content: string | null;
  tool_calls?: ToolCall[];
  refusal?: string | null;
  reasoning_content?: string;
  providerMetadata?: ProviderMetadata;
}

export interface ChatChoice {
  index: number;
  message: ResponseMessage;
  finish_reason: FinishReason | null;
}

/** What Switchyard adds to every answer: who answered and how. */
/** A part of the client's request a deployment got without it (request-origin.ts `Untranslatable`). */
export interface DroppedPart {
  readonly path: string;
  readonly what: string;
  readonly feature?: string;
}

export interface ResponseInfo {
  endpoint: string;
  deployment: string;
  provider: string;
  attempts: number;
  /** Degrade level name when the answer came from the degrade stage. */
  degraded?: string;
  /** True when the answer is an expired cache entry served because every candidate failed. */
  stale?: boolean;
  cached?: boolean;
  latencyMs?: number;
  /**
   * The deployment that answered when it is a backup: outside the model's first priority tier,
   * or a degrade level's model. Absent when a primary deployment answered.
   */
  fallback?: string;
  /** The request was kept in the degrade plugin's queue for replay under this id (a canned answer now, the real one later). */
  queued?: string;
  /** The prompt was shortened to fit the target's context window before it was sent. */
  truncated?: TruncationInfo;
  /** A stream cut mid-answer was continued on this deployment: the one whose stream was cut (endpoint, deployment…, are the continuing one's). */
  continuedFrom?: string;
  /** What the answering deployment did without: parts of the client's request it was sent without (translation.ts). */
  dropped?: readonly DroppedPart[];
  /**
   * The conversation's prompt cache was on this deployment (the one that answered its previous
   * turn) and another answered this one: the vendor rebuilds the cache at full input price.
   * Set once, on the answer that moved the conversation (the router's prompt-cache affinity).
   */
  cacheLost?: string;
}

/** What was left out of a prompt too long for the target (oldest turns first). */
export interface TruncationInfo {
  /** Messages dropped (a tool call and its results count one each). */
  droppedMessages: number;
  /** Prompt estimate (tokens) before and after. */
  fromTokens: number;
  toTokens: number;
  /** The target's `contextWindow`. */
  contextWindow: number;
}

export interface ChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  /** The upstream model that actually answered. */
  model: string;
  choices: ChatChoice[];
  usage?: Usage;
  system_fingerprint?: string | null;
  providerMetadata?: ProviderMetadata;
  switchyard?: ResponseInfo;
}

/** What `pipeline.chat()` resolves with: the pipeline always says who answered. */
export interface ChatResult extends ChatResponse {
  switchyard: ResponseInfo;
}

export interface EmbeddingRequest {
  model: string;
  input: string | string[];
  dimensions?: number;
  encoding_format?: 'float' | 'base64';
  user?: string;
  switchyard?: SwitchyardRequestOptions;
}

export interface EmbeddingResponse {
  object: 'list';
  data: { object: 'embedding'; index: number; embedding: number[] | string }[];
  model: string;
  usage?: { prompt_tokens: number; total_tokens: number };
  switchyard?: ResponseInfo;
}

/** What `pipeline.embeddings()` resolves with. */
export interface EmbeddingResult extends EmbeddingResponse {
  switchyard: ResponseInfo;
}

/* ---------------------------------------------------------------- stream parts */

export interface ResponseMetadataPart { type: 'response-metadata'; id?: string; model?: string; created?: number; providerMetadata?: ProviderMetadata }
export interface TextDeltaPart { type: 'text-delta'; text: string }
export interface ReasoningDeltaPart { type: 'reasoning-delta'; text: string; providerMetadata?: ProviderMetadata }
export interface ToolCallDeltaPart {
  type: 'tool-call-delta';
  /** Position of the call in the message's tool_calls array. */
  index: number;
  id?: string;
  name?: string;
  argumentsDelta: string;
  providerMetadata?: ProviderMetadata;
}
export interface UsagePart { type: 'usage'; usage: Usage }
export interface FinishPart { type: 'finish'; finishReason: FinishReason; rawFinishReason?: string; usage?: Usage; providerMetadata?: ProviderMetadata }
export interface ErrorPart { type: 'error'; error: import('./errors.js').SwitchyardError }

export type StreamPart =
  | ResponseMetadataPart
  | TextDeltaPart
  | ReasoningDeltaPart
  | ToolCallDeltaPart
  | UsagePart
  | FinishPart
  | ErrorPart;

/** Parts that carry answer content: the first of these is the stream's commit point. */
export function isContentPart(part: StreamPart): boolean {
  return part.type === 'text-delta' || part.type === 'reasoning-delta' || part.type === 'tool-call-delta';
}

/* ---------------------------------------------------------------- configuration */

export type Capability = 'tools' | 'json' | 'vision' | 'prefill' | 'stream' | 'embeddings' | (string & {});

export interface AttemptTimeouts {
  /** Connect + response headers, per attempt. */
  headersMs: number;
  /** From attempt start to the first content token (streams). */
  firstTokenMs: number;
  /** Between two chunks once a stream flows. */
  idleMs: number;
  /** Whole attempt for non-streaming calls. */
  attemptMs: number;
  /** Non-streaming calls: until the response headers, so a stalled endpoint fails over early (default 30 s). */
  firstByteMs?: number;
}

export interface EndpointConfig {
  name: string;
  provider: string;
  baseUrl?: string;
  apiKey?: string;
  apiKeys?: string[];
  /** Labels used for keys in logs, errors and metrics instead of the secret (`endpoint#index` by default). */
  keyIds?: string[];
  apiVersion?: string;
  /** A cloud provider's region (Bedrock). */
  region?: string;
  /** A Google Cloud project id (Vertex AI). */
  project?: string;
  /** A Google Cloud location (Vertex AI; `global` included). */
  location?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
  timeouts?: Partial<AttemptTimeouts>;
  /** Provider-specific options. */
  options?: Record<string, unknown>;
  /** Error rules applied before the provider's own classification (`{ status, code, match, kind }`). */
  errors?: ErrorRule[];
}

export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
  /**
   * Input tokens written to the vendor's prompt cache (usage `prompt_tokens_details.cache_write_tokens`,
   * Anthropic's `cache_creation_input_tokens`): Anthropic bills them above the input price
   * (1.25× for 5-minute entries). Default: the input price.
   */
  cacheWrite?: number;
  /** USD per call of a tool the vendor runs and bills per call (`web_search`, `web_fetch`…: usage's `server_tool_calls`). */
  perCall?: Readonly<Record<string, number>>;
  /**
   * The rates of a request whose prompt is longer than `aboveInputTokens` (cache reads and writes
   * included): Claude's 1M-token context and Gemini 2.5 Pro bill every token of such a request
   * at premium rates. An unset `cachedInput` / `cacheWrite` is the long-context input price.
   */
  longContext?: { aboveInputTokens: number; input: number; output: number; cachedInput?: number; cacheWrite?: number };
}

export interface DeploymentConfig {
  endpoint: string;
  model: string;
  priority?: number;
  weight?: number;
  contextWindow?: number;
  capabilities?: Capability[];
  price?: Price;
  timeouts?: Partial<AttemptTimeouts>;
  /** Parameter values it accepts; unset ones come from a provider preset (@switchyard/plugin-model-limits). */
  limits?: ModelLimits;
  /**
   * A request from a client of another API whose hints this deployment cannot take
   * (`context_management`, a hosted tool): `drop` (default) sends it without them and discloses
   * what was dropped; `strict` skips this deployment instead (translation.ts).
   */
  translate?: 'drop' | 'strict';
}

/** Parameter limits of a deployment: `[min, max]` ranges, the output cap, the most stop sequences. */
export interface ModelLimits {
  maxOutputTokens?: number;
  temperature?: [number, number];
  topP?: [number, number];
  presencePenalty?: [number, number];
  frequencyPenalty?: [number, number];
  maxStop?: number;
  /**
   * The values a field accepts, by its path in the request (`reasoning_effort`, `thinking.type`,
   * `response_format.type`): a vendor's `type must be in [enabled, disabled, auto]`, checked before sending.
   */
  values?: Record<string, string[]>;
}

/** A logical model: the deployments that can serve it, in default priority order. */
export type ModelsConfig = Record<string, DeploymentConfig[]>;

/** One thing the pipeline can try: an endpoint, one of its keys, an upstream model. */
export interface Candidate {
  /** Stable id for policies: `endpoint/model` plus `#key` when the endpoint has several keys. */
  id: string;
  /** `endpoint/model`: what breakers and health count per deployment. */
  deploymentId: string;
  endpoint: EndpointConfig;
  deployment: DeploymentConfig;
  provider: string;
  model: string;
  keyIndex: number;
  /** Safe label for the key (never the secret). */
  keyId: string;
  /** The secret, for the provider codec only. Never log this. */
  apiKey?: string;
  priority: number;
  weight: number;
  capabilities: ReadonlySet<string>;
  timeouts: AttemptTimeouts;
  /** Filled by the degrade stage for extra candidates. */
  degradeLevel?: string;
}
