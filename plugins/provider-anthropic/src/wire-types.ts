/**
 * The parts of the Anthropic Messages wire format this codec reads and writes. Everything is
 * optional on the way in: vendors and Anthropic-compatible proxies omit fields freely.
 */

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  /** Server tools Anthropic ran (billed per call). */
  server_tool_use?: { web_search_requests?: number | null; web_fetch_requests?: number | null } | null;
}

export type ImageSource = { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string };

export interface TextBlock { type: 'text'; text: string }
export interface ImageBlock { type: 'image'; source: ImageSource }
/** A PDF (base64) or a plain-text document. */
export interface DocumentBlock { type: 'document'; source: { type: 'base64'; media_type: string; data: string } | { type: 'text'; media_type: 'text/plain'; data: string }; title?: string }
export interface ToolUseBlock { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
export type UserMediaBlock = TextBlock | ImageBlock | DocumentBlock;
export interface ToolResultBlock { type: 'tool_result'; tool_use_id: string; content?: string | UserMediaBlock[]; is_error?: boolean }
export interface ThinkingBlock { type: 'thinking'; thinking: string; signature: string }
export interface RedactedThinkingBlock { type: 'redacted_thinking'; data: string }

/** Thinking blocks as they must be sent back on the next turn (signatures unchanged). */
export type SignedThinking = ThinkingBlock | RedactedThinkingBlock;

export type RequestBlock = UserMediaBlock | ToolUseBlock | ToolResultBlock | SignedThinking;

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: RequestBlock[];
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export type AnthropicToolChoice = { type: 'auto' | 'any' | 'none'; disable_parallel_tool_use?: boolean } | { type: 'tool'; name: string; disable_parallel_tool_use?: boolean };

export interface MessagesRequestBody {
  model: string;
  max_tokens: number;
  system?: string;
  messages: AnthropicMessage[];
  tools?: AnthropicTool[];
  tool_choice?: AnthropicToolChoice;
  temperature?: number;
  top_p?: number;
  stop_sequences?: string[];
  metadata?: { user_id: string };
  thinking?: { type: 'enabled'; budget_tokens: number };
  stream?: true;
}

/** A response content block; unknown types (server tools, citations…) are skipped. */
export interface ResponseBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  thinking?: string;
  signature?: string;
  data?: string;
}

export interface MessagesResponseBody {
  id?: string;
  model?: string;
  content?: ResponseBlock[];
  stop_reason?: string | null;
  stop_sequence?: string | null;
  stop_details?: Record<string, unknown> | null;
  usage?: AnthropicUsage;
}

export interface AnthropicErrorBody {
  type?: string;
  error?: { type?: string; message?: string; details?: unknown };
  request_id?: string;
}
