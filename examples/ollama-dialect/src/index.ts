/**
 * The Ollama native API as a Switchyard gateway dialect, written only against public exports
 * (`@switchyard/core` and `@switchyard/core/dialect`): `POST /api/chat` and `/api/generate`
 * (NDJSON streams, Ollama's default, or one JSON object with `stream: false`) and `GET /api/tags`.
 * Local tools that speak Ollama then get the gateway's failover over any vendor.
 *
 *   createGateway({ pipeline, dialects: [...DEFAULT_DIALECTS, ollamaDialect] })
 */
import { SwitchyardError, type ChatMessage, type ChatRequest, type ChatResponse, type FinishReason, type StreamInfo, type StreamPart, type ToolDefinition, type Usage } from '@switchyard/core';
import { defineDialect, type DecodedRequest, type GatewayErrorReply, type StreamEncoder } from '@switchyard/core/dialect';

type Json = Record<string, any>;

interface OllamaDecoded extends DecodedRequest {
  /** `/api/generate` answers in `response`, `/api/chat` in `message`. */
  readonly generate: boolean;
}

const invalid = (path: string, message: string) => new SwitchyardError('invalid-request', `${path}: ${message}`, { path, status: 400 });
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function message(m: unknown, i: number): ChatMessage {
  if (!isObject(m) || typeof m.role !== 'string') throw invalid(`messages[${i}]`, 'must be an object with a role');
  const images: string[] = Array.isArray(m.images) ? m.images : [];
  const text = typeof m.content === 'string' ? m.content : '';
  const content = images.length === 0 ? text : [{ type: 'text', text }, ...images.map((data) => ({ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }))];
  if (m.role === 'tool') return { role: 'tool', tool_call_id: m.tool_call_id ?? m.tool_name ?? `call_${i - 1}`, content: text };
  const out: ChatMessage = { role: m.role as ChatMessage['role'], content };
  if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
    out.tool_calls = m.tool_calls.map((c: Json, k: number) => ({ id: c.id ?? c.function?.name ?? `call_${i}_${k}`, type: 'function', function: { name: c.function?.name, arguments: JSON.stringify(c.function?.arguments ?? {}) } }));
  }
  return out;
}

function decode(body: unknown, generate: boolean): OllamaDecoded {
  if (!isObject(body)) throw invalid('(body)', 'must be a JSON object');
  if (typeof body.model !== 'string' || body.model === '') throw invalid('model', 'is required');
  let messages: ChatMessage[];
  if (generate) {
    if (typeof body.prompt !== 'string') throw invalid('prompt', 'must be a string');
    messages = [...(typeof body.system === 'string' ? [{ role: 'system' as const, content: body.system }] : []), { role: 'user', content: body.prompt }];
  } else {
    if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages', 'must be a non-empty array');
    messages = body.messages.map(message);
  }
  const request: ChatRequest = { model: body.model, messages };
  const options: Json = isObject(body.options) ? body.options : {};
  if (typeof options.temperature === 'number') request.temperature = options.temperature;
  if (typeof options.top_p === 'number') request.top_p = options.top_p;
  if (typeof options.num_predict === 'number' && options.num_predict > 0) request.max_completion_tokens = options.num_predict;
  if (typeof options.seed === 'number') request.seed = options.seed;
  if (Array.isArray(options.stop)) request.stop = options.stop;
  if (Array.isArray(body.tools) && body.tools.length > 0) request.tools = body.tools as ToolDefinition[];
  if (body.format === 'json') request.response_format = { type: 'json_object' };
  else if (isObject(body.format)) request.response_format = { type: 'json_schema', json_schema: { name: 'response', schema: body.format } };
  // Ollama streams unless told not to.
  const stream = body.stream !== false;
  if (stream) request.stream = true;
  return { request, stream, generate, hints: [], capabilities: [] };
}

const DONE_REASON: Partial<Record<FinishReason, string>> = { stop: 'stop', length: 'length', tool_calls: 'stop' };

/** One NDJSON object: the model's words so far (a chunk) or the closing one with counts. */
function line(model: string, generate: boolean, text: string, calls?: Json[], end?: { reason: FinishReason | null; usage?: Usage }): Json {
  const out: Json = { model, created_at: new Date().toISOString() };
  if (generate) out.response = text;
  else out.message = { role: 'assistant', content: text, ...(calls && calls.length > 0 ? { tool_calls: calls } : {}) };
  out.done = end !== undefined;
  if (end) Object.assign(out, { done_reason: DONE_REASON[end.reason ?? 'stop'] ?? 'stop', prompt_eval_count: end.usage?.prompt_tokens ?? 0, eval_count: end.usage?.completion_tokens ?? 0 });
  return out;
}

const toolCall = (name: string, args: string) => ({ function: { name, arguments: args ? JSON.parse(args) : {} } });

class NdjsonEncoder implements StreamEncoder {
  private readonly calls = new Map<number, { name: string; args: string }>();
  private finish: { reason: FinishReason | null; usage?: Usage } = { reason: 'stop' };

  constructor(
    private readonly info: StreamInfo,
    private readonly generate: boolean,
  ) {}

  encode(part: StreamPart): string {
    if (part.type === 'text-delta') return `${JSON.stringify(line(this.info.model, this.generate, part.text))}\n`;
    if (part.type === 'tool-call-delta') {
      const call = this.calls.get(part.index) ?? { name: part.name ?? '', args: '' };
      call.args += part.argumentsDelta;
      this.calls.set(part.index, call);
    } else if (part.type === 'finish') this.finish = { reason: part.finishReason, usage: part.usage ?? this.finish.usage };
    else if (part.type === 'usage') this.finish.usage = part.usage;
    return '';
  }

  end(): string {
    const calls = [...this.calls.values()].map((c) => toolCall(c.name, c.args));
    return `${JSON.stringify(line(this.info.model, this.generate, '', calls, this.finish))}\n`;
  }
}

export const ollamaDialect = defineDialect<OllamaDecoded>({
  specificationVersion: 'v1',
  id: 'ollama.api',
  routes: [
    { method: 'POST', path: '/api/chat', operation: 'generate' },
    { method: 'POST', path: '/api/generate', operation: 'generate' },
    { method: 'GET', path: '/api/tags', operation: 'models' },
  ],
  decodeRequest: ({ body, route }) => decode(body, route.path === '/api/generate'),
  encodeResponse(response: ChatResponse, { generate }) {
    const choice = response.choices[0]!;
    const calls = (choice.message.tool_calls ?? []).map((c) => toolCall(c.function.name, c.function.arguments));
    return line(response.model, generate, choice.message.content ?? '', calls, { reason: choice.finish_reason, usage: response.usage });
  },
  createStreamEncoder: (info, { generate }) => new NdjsonEncoder(info, generate),
  // NDJSON has no comment line: the head goes out early, without heartbeat text.
  streamFraming: () => ({ contentType: 'application/x-ndjson', heartbeat: '' }),
  renderError: (reply: GatewayErrorReply) => ({ status: reply.status, body: { error: reply.body.error.message }, headers: reply.headers }),
  streamError: (reply) => `${JSON.stringify({ error: reply.body.error.message })}\n`,
  models: {
    list: (models, created) => ({ models: models.map((name) => ({ name, model: name, modified_at: new Date(created * 1000).toISOString(), size: 0, digest: '', details: { format: 'switchyard', family: 'gateway' } })) }),
    one: (name) => ({ name, model: name }),
  },
});
