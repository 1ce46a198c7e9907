/**
 * The parts of the Gemini Generative Language API wire format this codec reads and writes.
 * Everything is optional on the way in: the vendor adds fields, and Vertex sends sparse chunks.
 */

export interface GeminiFunctionCall {
  name?: string;
  args?: Record<string, unknown>;
  id?: string;
  /** Vertex `streamFunctionCallArguments`: more fragments of this call follow. */
  willContinue?: boolean;
  partialArgs?: GeminiPartialArg[];
}

export interface GeminiPartialArg {
  jsonPath?: string;
  stringValue?: string;
  numberValue?: number;
  boolValue?: boolean;
  nullValue?: unknown;
  willContinue?: boolean;
}

export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { name: string; response: Record<string, unknown> };
}

export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount?: number;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  finishMessage?: string;
  index?: number;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  promptFeedback?: { blockReason?: string; blockReasonMessage?: string };
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
  createTime?: string;
}

export interface GeminiErrorDetail {
  '@type'?: string;
  reason?: string;
  retryDelay?: string;
  violations?: { quotaId?: string; quotaMetric?: string }[];
  [key: string]: unknown;
}

export interface GeminiErrorBody {
  error?: { code?: number; message?: string; status?: string; details?: GeminiErrorDetail[] };
}
