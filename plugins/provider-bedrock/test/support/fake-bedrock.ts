/**
 * A loopback Amazon Bedrock Runtime that checks what Bedrock checks: every request's SigV4
 * signature with its own node:crypto verifier (sigv4-verify.ts, proven on AWS's test suite) or
 * a Bedrock API key; the InvokeModel body as Bedrock's validation takes it (Bedrock User Guide,
 * "Anthropic Claude Messages API": `anthropic_version` must be `bedrock-2023-05-31`, the model
 * and the stream choice are not body fields, so `model`/`stream` are refused as "extraneous
 * key", and `anthropic_beta` values outside the documented list are an invalid beta flag). It
 * answers in real event-stream frames (event-stream-frames.ts), split across chunks, and can
 * throttle, fail, send exception frames or corrupt a frame's CRC.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BEDROCK_ANTHROPIC_BETAS } from '../../src/betas.js';
import { claudeCodeEvents, claudeCodeMessage } from './claude-code-shape.js';
import { chunkFrame, converseFrame, exceptionFrame, rechunk } from './event-stream-frames.js';
import { verifySigV4, type SecretOf } from './sigv4-verify.js';

export type BedrockBehaviour =
  | { type: 'ok' }
  | { type: 'http-error'; status: number; exception: string; message: string }
  | { type: 'stream-exception'; afterEvents: number; exception: string; message: string }
  | { type: 'corrupt-crc'; afterEvents: number }
  /** After `afterEvents` events, a frame prelude claiming `claimBytes`, 64 KiB of it, then nothing more (the response stays open). */
  | { type: 'huge-frame'; afterEvents: number; claimBytes: number };

export interface SeenBedrockRequest {
  path: string;
  model: string;
  operation: string;
  body: Record<string, unknown>;
  accessKeyId?: string;
  bearer?: string;
  signedHeaders?: string[];
}

export interface FakeBedrock {
  url: string;
  region: string;
  seen: SeenBedrockRequest[];
  /** Behaviours for the next requests, in order; afterwards every request succeeds. */
  next(...behaviours: BedrockBehaviour[]): void;
  /** Access keys the fake accepts (an issuer adds the keys it hands out). */
  keys: Map<string, SecretOf>;
  apiKeys: Set<string>;
  /** Sizes the stream's bytes are cut into, in turn. */
  chunkSizes: number[];
  close(): Promise<void>;
}

const ALLOWED_BETAS = new Set(BEDROCK_ANTHROPIC_BETAS);

function send(res: ServerResponse, status: number, body: unknown, exception?: string): void {
  res.writeHead(status, { 'content-type': 'application/json', ...(exception ? { 'x-amzn-errortype': `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/` } : {}), 'x-amzn-requestid': 'req-fake' });
  res.end(JSON.stringify(body));
}

/** What Bedrock's validation says about an InvokeModel body for Claude, or undefined when it takes it. */
export function bedrockRefusal(body: Record<string, unknown>): string | undefined {
  for (const key of ['model', 'stream']) if (key in body) return `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`;
  if (body.anthropic_version !== 'bedrock-2023-05-31') return 'Malformed input request: #/anthropic_version: bedrock-2023-05-31 is required';
  const betas = body.anthropic_beta;
  if (betas !== undefined && (!Array.isArray(betas) || betas.some((b) => !ALLOWED_BETAS.has(b as string)))) return 'invalid beta flag';
  if (typeof body.max_tokens !== 'number' || !Array.isArray(body.messages)) return 'Malformed input request: #: required key [max_tokens] not found';
  return undefined;
}

/** Converse content blocks Bedrock knows (Converse API reference, ContentBlock / SystemContentBlock). */
const CONVERSE_BLOCKS = new Set(['text', 'image', 'document', 'video', 'toolUse', 'toolResult', 'guardContent', 'cachePoint', 'reasoningContent']);
const CONVERSE_FIELDS = new Set(['messages', 'system', 'inferenceConfig', 'toolConfig', 'additionalModelRequestFields', 'guardrailConfig', 'promptVariables', 'requestMetadata', 'performanceConfig']);

/** What Converse's validation says about a body: unknown keys, roles out of turn, unknown blocks. */
export function converseRefusal(body: Record<string, unknown>): string | undefined {
  for (const key of Object.keys(body)) if (!CONVERSE_FIELDS.has(key)) return `Malformed input request: extraneous key [${key}] is not permitted`;
  const messages = body.messages as { role?: string; content?: Record<string, unknown>[] }[] | undefined;
  if (!Array.isArray(messages) || messages.length === 0 || messages[0]!.role !== 'user') return 'A conversation must start with a user message. Try again with a conversation that starts with a user message.';
  for (const [i, m] of messages.entries()) {
    if (i > 0 && m.role === messages[i - 1]!.role) return 'A conversation must alternate between user and assistant roles.';
    for (const block of m.content ?? []) if (Object.keys(block).length !== 1 || !CONVERSE_BLOCKS.has(Object.keys(block)[0]!)) return `The content block ${JSON.stringify(Object.keys(block))} is not valid.`;
  }
  for (const block of (body.system as Record<string, unknown>[] | undefined) ?? []) if (Object.keys(block).length !== 1 || !['text', 'guardContent', 'cachePoint'].includes(Object.keys(block)[0]!)) return 'The system content block is not valid.';
  return undefined;
}

export async function startFakeBedrock(options: { region?: string; keys?: Record<string, SecretOf>; apiKeys?: string[] } = {}): Promise<FakeBedrock> {
  const region = options.region ?? 'us-east-1';
  const queue: BedrockBehaviour[] = [];
  const fake = {
    url: '',
    region,
    seen: [] as SeenBedrockRequest[],
    keys: new Map(Object.entries(options.keys ?? {})),
    apiKeys: new Set(options.apiKeys ?? []),
    chunkSizes: [7, 300, 1, 64],
    next: (...behaviours: BedrockBehaviour[]) => void queue.push(...behaviours),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function converse(res: ServerResponse, operation: string, body: Record<string, unknown>): void {
    const refusal = converseRefusal(body);
    if (refusal) return send(res, 400, { message: refusal }, 'ValidationException');
    const behaviour = queue.shift() ?? { type: 'ok' };
    if (behaviour.type === 'http-error') return send(res, behaviour.status, { message: behaviour.message }, behaviour.exception);
    const usage = { inputTokens: 40, outputTokens: 12, totalTokens: 52, cacheReadInputTokens: 30 };
    if (operation === 'converse') {
      return send(res, 200, { output: { message: { role: 'assistant', content: [{ text: 'Checking the weather.' }, { toolUse: { toolUseId: 'tooluse_01', name: 'lookup_weather', input: { city: 'Oslo' } } }] } }, stopReason: 'tool_use', usage, metrics: { latencyMs: 120 } });
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
    const events: [string, unknown][] = [
      ['messageStart', { role: 'assistant' }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Checking ' } }],
      ['contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'the weather.' } }],
      ['contentBlockStop', { contentBlockIndex: 0 }],
      ['contentBlockStart', { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_01', name: 'lookup_weather' } } }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '{"city":' } } }],
      ['contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: '"Oslo"}' } } }],
      ['contentBlockStop', { contentBlockIndex: 1 }],
      ['messageStop', { stopReason: 'tool_use' }],
      ['metadata', { usage, metrics: { latencyMs: 120 } }],
    ];
    for (const piece of rechunk(Buffer.concat(events.map(([type, payload]) => converseFrame(type, payload))), fake.chunkSizes)) res.write(piece);
    res.end();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const target = req.url ?? '/';
    const authorization = req.headers.authorization ?? '';
    let accessKeyId: string | undefined;
    let bearer: string | undefined;
    let signedHeaders: string[] | undefined;
    if (authorization.startsWith('Bearer ')) {
      bearer = authorization.slice(7);
      if (!fake.apiKeys.has(bearer)) return send(res, 403, { message: 'Invalid API Key format: Must start with pre-defined prefix' }, 'UnrecognizedClientException');
    } else {
      const headers: [string, string][] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
      const verdict = verifySigV4({ method: req.method ?? 'GET', target, headers, body: raw }, { region, service: 'bedrock', now: new Date(), secretOf: (id) => fake.keys.get(id) });
      if (!verdict.ok) {
        const exception = verdict.code === 'UnrecognizedClient' ? 'UnrecognizedClientException' : verdict.code === 'ExpiredToken' ? 'ExpiredTokenException' : verdict.code === 'MissingAuthenticationToken' ? 'MissingAuthenticationTokenException' : 'InvalidSignatureException';
        return send(res, 403, { message: `The request signature we calculated does not match the signature you provided (${verdict.reason})` }, exception);
      }
      ({ accessKeyId, signedHeaders } = verdict);
    }
    const m = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|count-tokens|converse|converse-stream)$/.exec(target);
    if (!m || req.method !== 'POST') return send(res, 404, { message: `no route ${req.method} ${target}` }, 'ResourceNotFoundException');
    const model = decodeURIComponent(m[1]!);
    const operation = m[2]!;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      return send(res, 400, { message: 'Malformed input request: body is not JSON' }, 'ValidationException');
    }
    if (operation === 'count-tokens') {
      const input = body.input as { invokeModel?: { body?: string }; converse?: Record<string, unknown> } | undefined;
      if (input?.converse) {
        fake.seen.push({ path: target, model, operation, body: input.converse, accessKeyId, bearer, signedHeaders });
        const refusal = converseRefusal(input.converse);
        return refusal ? send(res, 400, { message: refusal }, 'ValidationException') : send(res, 200, { inputTokens: Math.ceil(JSON.stringify(input.converse.messages).length / 4) });
      }
      body = input?.invokeModel?.body ? (JSON.parse(Buffer.from(input.invokeModel.body, 'base64').toString('utf8')) as Record<string, unknown>) : body;
    }
    fake.seen.push({ path: target, model, operation, body, accessKeyId, bearer, signedHeaders });
    if (operation.startsWith('converse')) return converse(res, operation, body);
    const refusal = bedrockRefusal(body);
    if (refusal) return send(res, 400, { message: refusal }, 'ValidationException');
    if (operation === 'count-tokens') return send(res, 200, { inputTokens: Math.ceil(JSON.stringify(body.messages).length / 4) });
    const behaviour = queue.shift() ?? { type: 'ok' };
    if (behaviour.type === 'http-error') return send(res, behaviour.status, { message: behaviour.message }, behaviour.exception);
    const answerModel = model.replace(/^[a-z-]+\.anthropic\.|^anthropic\./, '').replace(/-v\d+:\d+$/, '');
    if (operation === 'invoke') return send(res, 200, claudeCodeMessage(answerModel));
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
    const events = claudeCodeEvents(answerModel, { 'amazon-bedrock-invocationMetrics': { inputTokenCount: 1200, outputTokenCount: 61, invocationLatency: 812, firstByteLatency: 301 } });
    const frames: Buffer[] = [];
    for (const [i, event] of events.entries()) {
      if (behaviour.type === 'stream-exception' && i === behaviour.afterEvents) {
        frames.push(exceptionFrame(behaviour.exception, behaviour.message));
        break;
      }
      if (behaviour.type === 'huge-frame' && i === behaviour.afterEvents) {
        const prelude = Buffer.alloc(64 * 1024, 0x41);
        prelude.writeUInt32BE(behaviour.claimBytes, 0);
        frames.push(prelude);
        for (const piece of rechunk(Buffer.concat(frames), fake.chunkSizes)) res.write(piece);
        return;
      }
      const frame = chunkFrame(event);
      if (behaviour.type === 'corrupt-crc' && i === behaviour.afterEvents) {
        frame[frame.length - 6]! ^= 0xff;
        frames.push(frame);
        break;
      }
      frames.push(frame);
    }
    for (const piece of rechunk(Buffer.concat(frames), fake.chunkSizes)) res.write(piece);
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, { message: String(error) }, 'InternalServerException');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
