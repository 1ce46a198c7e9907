/**
 * A scripted loopback vendor for the agent conformance suite: it speaks Anthropic Messages,
 * OpenAI Chat Completions or OpenAI Responses and plays one short tool-using conversation with
 * whatever client is on the other side. It reads the client's own tool declarations (any API),
 * asks for the notes file with the client's file-reading (or shell) tool, and once the tool result
 * holds the notes' marker it answers with the final marker. A second turn ("say goodbye") gets a
 * second marker. It can fail before the first byte or cut its answer mid-stream (once), and as
 * an Anthropic vendor it validates thinking blocks as Anthropic does: every signature must be one
 * it issued, with thinking on the assistant turn a tool result answers must start with one, and
 * with thinking on no assistant answer may be prefilled.
 */
import type http from 'node:http';
import type { Handler } from '../../../packages/gateway/test/support/harness.js';

export const NOTES_MARKER = 'SWITCHYARD-NOTES-7f3a';
export const FINAL = `The notes say: ${NOTES_MARKER} (final answer FINAL-91c2).`;
export const FINAL_MARKER = 'FINAL-91c2';
export const SECOND_PROMPT = 'Thanks. Now reply with the word goodbye.';
export const SECOND_MARKER = 'GOODBYE-4d1e';
/** Where a cut stream stops: the client has seen this much of the final answer. */
export const CUT_AFTER = 'The notes say: ';

export type Api = 'anthropic' | 'chat' | 'responses';
export type Behaviour = 'answer' | 'fail' | 'cut-once';

export interface Script {
  /** Tool results (the request text that carried the notes' marker). */
  toolResults: string[];
  /** Tool calls this vendor asked for. */
  toolCalls: number;
  /** Requests this vendor refused as Anthropic would (invalid thinking history), with the reason. */
  refusals: string[];
  /** Answers that were the final marker. */
  finals: number;
  /** Answers to the second turn. */
  seconds: number;
  cuts: number;
  /** Continuations this vendor served (the request ended with a partial assistant answer). */
  continuations: number;
}

export function newScript(): Script {
  return { toolResults: [], toolCalls: 0, refusals: [], finals: 0, seconds: 0, cuts: 0, continuations: 0 };
}

interface Turn {
  text?: string;
  call?: { name: string; args: Record<string, unknown>; custom?: { input: string; namespace?: string } };
  /** Text the client already holds (a continuation's prefill). */
  prefix?: string;
}

interface Declared {
  name: string;
  custom: boolean;
  schema?: any;
  /** The Responses namespace that declares it. */
  namespace?: string;
}

/** Every tool the request declares, in any API's shape (nested items such as Codex's additional_tools included). */
function declaredTools(body: unknown): Declared[] {
  const out: Declared[] = [];
  const walk = (v: unknown, namespace?: string): void => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, namespace));
    if (!v || typeof v !== 'object') return;
    const o = v as Record<string, any>;
    if (o.type === 'namespace') return walk(o.tools, o.name);
    if (typeof o.name === 'string' && (o.input_schema || o.parameters || o.type === 'custom')) out.push({ name: o.name, custom: o.type === 'custom', schema: o.input_schema ?? o.parameters, namespace });
    else if (o.type === 'function' && o.function && typeof o.function.name === 'string') out.push({ name: o.function.name, custom: false, schema: o.function.parameters });
    for (const key of ['tools', 'input']) if (key in o) walk(o[key], namespace);
  };
  walk((body as Record<string, unknown>).tools);
  walk((body as Record<string, unknown>).input);
  return out;
}

const READERS = ['Read', 'read', 'read_file', 'read_notes', 'view'];
const SHELLS = ['exec_command', 'shell_command', 'shell', 'bash', 'Bash'];

/** The call that reads `file` with the client's own tool, or undefined when it offers none. */
function readCall(tools: Declared[], file: string): Turn['call'] {
  const props = (t: Declared) => Object.keys(t.schema?.properties ?? {});
  for (const name of READERS) {
    const tool = tools.find((t) => t.name === name && !t.custom);
    if (!tool) continue;
    const key = props(tool).find((p) => /path|file/i.test(p)) ?? props(tool)[0] ?? 'path';
    return { name, args: { [key]: file } };
  }
  for (const name of SHELLS) {
    const tool = tools.find((t) => t.name === name && !t.custom);
    if (!tool) continue;
    const keys = props(tool);
    const key = keys.find((p) => p === 'cmd' || p === 'command') ?? keys[0] ?? 'command';
    const asArray = tool.schema?.properties?.[key]?.type === 'array';
    return { name, args: { [key]: asArray ? ['cat', file] : `cat ${file}` } };
  }
  // Codex's code mode: one freeform `exec` tool running JavaScript that calls the nested shell tool
  // (or, translated for another API, a function taking that script as its one string).
  const script = (f: string) => `const out = await tools.exec_command({ cmd: ${JSON.stringify(`cat ${f}`)} });\ntext(out);`;
  const exec = tools.find((t) => t.custom && t.name === 'exec');
  if (exec) return { name: 'exec', args: {}, custom: { input: script(file), namespace: exec.namespace } };
  const translated = tools.find((t) => !t.custom && /(^|[^a-z])exec$/.test(t.name) && props(t).length === 1);
  if (translated) return { name: translated.name, args: { [props(translated)[0]!]: script(file) } };
  return undefined;
}

/** The partial assistant answer a continuation ends with (the last message, or Responses' last input item). */
function prefillOf(body: any): string | undefined {
  const turns = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [];
  const last = turns[turns.length - 1];
  if (last?.role !== 'assistant') return undefined;
  const text = typeof last.content === 'string' ? last.content : (last.content ?? []).filter((b: any) => b.type === 'text' || b.type === 'output_text').map((b: any) => b.text).join('');
  return text && FINAL.startsWith(text) ? text : undefined;
}

/** What the conversation needs next, from the request as the vendor received it. */
function nextTurn(raw: string, body: any, script: Script, file: string): Turn {
  const prefix = prefillOf(body);
  if (prefix !== undefined) {
    script.continuations++;
    script.finals++;
    return { text: FINAL.slice(prefix.length), prefix };
  }
  if (raw.includes(SECOND_PROMPT)) {
    script.seconds++;
    return { text: `Goodbye (${SECOND_MARKER}).` };
  }
  if (raw.includes(NOTES_MARKER)) {
    script.toolResults.push(raw);
    script.finals++;
    return { text: FINAL };
  }
  const call = readCall(declaredTools(body), file);
  if (call && raw.includes('notes.txt')) {
    script.toolCalls++;
    return { call };
  }
  return { text: 'ok' };
}

/** Anthropic's checks on thinking history: signatures it issued, and a thinking block first in a tool-use turn when thinking is on. */
function thinkingRefusal(body: any, issued: Set<string>): string | undefined {
  const messages: any[] = Array.isArray(body.messages) ? body.messages : [];
  for (const m of messages) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const block of m.content) if (block.type === 'thinking' && !issued.has(block.signature)) return 'messages: Invalid `signature` in `thinking` block';
  }
  const thinkingOn = body.thinking && body.thinking.type !== 'disabled';
  const last = messages[messages.length - 1];
  if (thinkingOn && last?.role === 'assistant') return 'messages: the final assistant message cannot be prefilled when thinking is enabled';
  const answersTool = last?.role === 'user' && Array.isArray(last.content) && last.content.some((b: any) => b.type === 'tool_result');
  if (thinkingOn && answersTool) {
    const assistant = messages[messages.length - 2];
    const first = Array.isArray(assistant?.content) ? assistant.content[0] : { type: 'text' };
    if (first?.type !== 'thinking' && first?.type !== 'redacted_thinking') return `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first?.type ?? 'text'}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
  }
  return undefined;
}

const sse = (type: string | undefined, data: unknown) => `${type ? `event: ${type}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** Writes `events`; with a cut, writes up to the cut and destroys the socket. */
function send(res: http.ServerResponse, events: string[], cutAt: number | undefined): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  if (cutAt === undefined) {
    res.end(events.join(''));
    return;
  }
  // The partial answer is handed to the socket before the connection dies.
  res.write(events.slice(0, cutAt).join(''), () => res.socket?.destroy());
}

function anthropicAnswer(res: http.ServerResponse, body: any, turn: Turn, script: Script, cut: boolean, tag: string, issued: Set<string>): void {
  const thinking = body.thinking && body.thinking.type !== 'disabled' && !turn.prefix;
  const blocks: any[] = [];
  if (thinking) {
    const signature = `sig-${tag}-${issued.size + 1}`;
    issued.add(signature);
    blocks.push({ type: 'thinking', thinking: 'The user wants the notes.', signature });
  }
  const id = `toolu_${tag}_${script.toolCalls}`;
  if (turn.call) blocks.push({ type: 'tool_use', id, name: turn.call.name, input: turn.call.args });
  else blocks.push({ type: 'text', text: turn.text ?? '' });
  const usage = { input_tokens: 120, output_tokens: 12, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const message = { id: `msg_${tag}_${Date.now()}`, type: 'message', role: 'assistant', model: body.model, content: blocks, stop_reason: turn.call ? 'tool_use' : 'end_turn', stop_sequence: null, usage };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(message));
    return;
  }
  const events = [sse('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } })];
  let cutAt: number | undefined;
  blocks.forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }));
      events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else if (block.type === 'tool_use') {
      events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }));
      events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }));
    } else {
      events.push(sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }));
      const [head, tail] = cut ? [CUT_AFTER, block.text.slice(CUT_AFTER.length)] : [block.text, ''];
      events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: head } }));
      if (cut) cutAt = events.length;
      if (tail) events.push(sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: tail } }));
    }
    events.push(sse('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(sse('message_delta', { type: 'message_delta', delta: { stop_reason: message.stop_reason, stop_sequence: null }, usage: { output_tokens: 12 } }));
  events.push(sse('message_stop', { type: 'message_stop' }));
  send(res, events, cutAt);
}

function chatAnswer(res: http.ServerResponse, body: any, turn: Turn, script: Script, cut: boolean, tag: string): void {
  const id = `chatcmpl-${tag}`;
  const model = body.model;
  const call = turn.call ? { index: 0, id: `call_${tag}_${script.toolCalls}`, type: 'function', function: { name: turn.call.name, arguments: JSON.stringify(turn.call.args) } } : undefined;
  const usage = { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 };
  if (!body.stream) {
    const message = call ? { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] } : { role: 'assistant', content: turn.text };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created: 1, model, choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop' }], usage }));
    return;
  }
  const chunk = (delta: unknown, finish: string | null = null) => sse(undefined, { id, object: 'chat.completion.chunk', created: 1, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  let cutAt: number | undefined;
  if (call) events.push(chunk({ tool_calls: [call] }));
  else if (cut) {
    events.push(chunk({ content: CUT_AFTER }));
    cutAt = events.length;
    events.push(chunk({ content: (turn.text ?? '').slice(CUT_AFTER.length) }));
  } else events.push(chunk({ content: turn.text }));
  events.push(chunk({}, call ? 'tool_calls' : 'stop'));
  events.push(sse(undefined, { id, object: 'chat.completion.chunk', created: 1, model, choices: [], usage }));
  events.push('data: [DONE]\n\n');
  send(res, events, cutAt);
}

function responsesAnswer(res: http.ServerResponse, body: any, turn: Turn, script: Script, cut: boolean, tag: string): void {
  const id = `resp_${tag}_${Date.now()}`;
  const callId = `call_${tag}_${script.toolCalls}`;
  const custom = turn.call?.custom;
  const item: any = custom
    ? { type: 'custom_tool_call', id: `ctc_${tag}_${script.toolCalls}`, call_id: callId, name: turn.call!.name, input: custom.input, status: 'completed', ...(custom.namespace ? { namespace: custom.namespace } : {}) }
    : turn.call
      ? { type: 'function_call', id: `fc_${tag}_${script.toolCalls}`, call_id: callId, name: turn.call.name, arguments: JSON.stringify(turn.call.args), status: 'completed' }
      : { type: 'message', id: `msg_${tag}_${script.finals}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text ?? '', annotations: [] }] };
  const usage = { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 12, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 132 };
  const response = { id, object: 'response', created_at: 1, status: 'completed', model: body.model, output: [item], usage, error: null, incomplete_details: null };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(response));
    return;
  }
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => sse(type, { type, sequence_number: seq++, ...data });
  const events = [ev('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } })];
  let cutAt: number | undefined;
  if (item.type === 'custom_tool_call') {
    events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, input: '', status: 'in_progress' } }));
    events.push(ev('response.custom_tool_call_input.delta', { output_index: 0, item_id: item.id, delta: item.input }));
    events.push(ev('response.custom_tool_call_input.done', { output_index: 0, item_id: item.id, input: item.input }));
  } else if (item.type === 'function_call') {
    events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } }));
    events.push(ev('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: item.arguments }));
    events.push(ev('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: item.arguments }));
  } else {
    const text = turn.text ?? '';
    events.push(ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } }));
    events.push(ev('response.content_part.added', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } }));
    const [head, tail] = cut ? [CUT_AFTER, text.slice(CUT_AFTER.length)] : [text, ''];
    events.push(ev('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: head }));
    if (cut) cutAt = events.length;
    if (tail) events.push(ev('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: tail }));
    events.push(ev('response.output_text.done', { output_index: 0, item_id: item.id, content_index: 0, text }));
    events.push(ev('response.content_part.done', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text, annotations: [] } }));
  }
  events.push(ev('response.output_item.done', { output_index: 0, item }));
  events.push(ev('response.completed', { response }));
  send(res, events, cutAt);
}

function failure(api: Api, res: http.ServerResponse): void {
  if (api === 'anthropic') {
    res.writeHead(529, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }));
    return;
  }
  res.writeHead(503, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: 'The server is overloaded, please try again later.', type: 'server_error', code: null } }));
}

/** A loopback vendor handler speaking `api`, playing the conversation in `script`. */
export function scriptedVendor(api: Api, behaviour: Behaviour, script: Script, file: string, tag: string): Handler {
  /** Signatures this vendor issued on thinking blocks (Anthropic accepts only its own). */
  const issued = new Set<string>();
  return (req, res, raw) => {
    const path = req.url ?? '';
    if (req.method === 'GET') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [] }));
      return;
    }
    if (path.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 120 }));
      return;
    }
    if (behaviour === 'fail') return failure(api, res);
    const body = JSON.parse(raw || '{}');
    if (api === 'anthropic') {
      const refusal = thinkingRefusal(body, issued);
      if (refusal) {
        script.refusals.push(refusal);
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: refusal } }));
        return;
      }
    }
    const turn = nextTurn(raw, body, script, file);
    const cut = behaviour === 'cut-once' && script.cuts === 0 && turn.text === FINAL && body.stream === true;
    if (cut) script.cuts++;
    if (api === 'anthropic') anthropicAnswer(res, body, turn, script, cut, tag, issued);
    else if (api === 'chat') chatAnswer(res, body, turn, script, cut, tag);
    else responsesAnswer(res, body, turn, script, cut, tag);
  };
}
