/**
 * The client's Chat Completions text sent on as it came, with only the upstream model (and a
 * stream's usage request) spliced in — and serialised as before whenever that would not be
 * exactly what the codec sends.
 */
import { describe, expect, it } from 'vitest';
import { type ChatRequest } from '@switchyard/core';
import { setRequestOrigin, OPENAI_CHAT_COMPLETION } from '@switchyard/core/wire';
import { buildChatBody, passedThroughChatBody, type ChatBodyOptions } from './request.js';

/** A request as the gateway hands it over: parsed from `text`, with the text and its bytes as its origin. */
function fromClient(text: string): ChatRequest {
  const request = JSON.parse(text) as ChatRequest;
  setRequestOrigin(request, { format: OPENAI_CHAT_COMPLETION, body: request, text, bytes: Buffer.from(text) });
  return request;
}

const options = (extra: Partial<ChatBodyOptions> = {}): ChatBodyOptions => ({ stream: false, model: 'gpt-4o-mini', keepReasoning: false, ...extra });

/** The text sent, checked to be exactly what its bytes say (they are spliced from the client's, never encoded again). */
function sentText(request: ChatRequest, bodyOptions: ChatBodyOptions): string | undefined {
  const sent = passedThroughChatBody(request, bodyOptions);
  if (sent === undefined) return undefined;
  expect(Buffer.from(sent.bodyBytes!).equals(Buffer.from(sent.body))).toBe(true);
  return sent.body;
}

describe('the client body passed through', () => {
  it('is the client text with the model replaced, white space and field order kept, and means what the codec would send', () => {
    const text = '{ "messages": [{"role": "user", "content": "say \\"model\\": \\"chat\\""}],\n  "model": "chat", "temperature": 0.2, "logprobs": true }';
    const request = fromClient(text);
    const sent = sentText(request, options());
    expect(sent).toBe('{ "messages": [{"role": "user", "content": "say \\"model\\": \\"chat\\""}],\n  "model":"gpt-4o-mini", "temperature": 0.2, "logprobs": true }');
    expect(JSON.parse(sent!)).toEqual(buildChatBody(request, options()));
  });

  it('asks a stream for its usage chunk as the codec does, and keeps a client that asked itself', () => {
    const request = fromClient('{"model":"chat","messages":[{"role":"user","content":"hi"}],"stream":true}');
    const sent = sentText(request, options({ stream: true }));
    expect(JSON.parse(sent!)).toEqual(buildChatBody(request, options({ stream: true })));
    expect(sent!.endsWith(',"stream_options":{"include_usage":true}}')).toBe(true);
    const asked = fromClient('{"model":"chat","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":false}}');
    // A client that said no is still asked for usage upstream (the codec rebuilds the body).
    expect(passedThroughChatBody(asked, options({ stream: true }))).toBeUndefined();
    expect(buildChatBody(asked, options({ stream: true })).stream_options).toEqual({ include_usage: true });
    const yes = fromClient('{"model":"chat","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}');
    expect(JSON.parse(sentText(yes, options({ stream: true }))!)).toEqual(buildChatBody(yes, options({ stream: true })));
  });

  it('splices the bytes where the text was spliced, whatever characters come before and after', () => {
    for (const before of ['', 'é', '日本語', '😀 and é']) {
      for (const after of ['', 'ü', '😀😀']) {
        const text = `{"messages":[{"role":"user","content":"${before}"}],"model":"chat","stream":true,"user":"${after}"}`;
        const sent = sentText(fromClient(text), options({ stream: true }));
        expect(sent).toBe(`{"messages":[{"role":"user","content":"${before}"}],"model":"gpt-4o-mini","stream":true,"user":"${after}","stream_options":{"include_usage":true}}`);
      }
    }
  });

  it('is not used when the codec would send something else, or the model cannot be found for certain', () => {
    const cases = [
      // Switchyard's own hints are never sent upstream.
      '{"model":"chat","messages":[{"role":"user","content":"hi"}],"switchyard":{"tier":"fast"}}',
      // Our vendor data on a message is dropped by the codec.
      '{"model":"chat","messages":[{"role":"assistant","content":"x","providerMetadata":{"a":{}}},{"role":"user","content":"hi"}]}',
      // Reasoning sent back only to vendors that want it.
      '{"model":"chat","messages":[{"role":"assistant","content":"x","reasoning_content":"r"},{"role":"user","content":"hi"}]}',
      // A second "model": "chat" (a tool's schema): which one is the request's is not certain.
      '{"model":"chat","messages":[{"role":"user","content":"hi"}],"metadata":{"model":"chat"}}',
      // An escaped model name: the text does not spell it the way it parses.
      '{"model":"ch\\u0061t","messages":[{"role":"user","content":"hi"}]}',
      // stream_options on a call that does not stream is dropped by the codec.
      '{"model":"chat","messages":[{"role":"user","content":"hi"}],"stream_options":{"include_usage":true}}',
    ];
    for (const text of cases) expect(passedThroughChatBody(fromClient(text), options()), text).toBeUndefined();
  });

  it('is not used for a request a plugin or the caller changed (a new object), nor one without the client text', () => {
    const request = fromClient('{"model":"chat","messages":[{"role":"user","content":"hi"}]}');
    expect(passedThroughChatBody({ ...request, max_tokens: 10 }, options())).toBeUndefined();
    expect(passedThroughChatBody({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }, options())).toBeUndefined();
  });

  it('leaves out fields a vendor with an allow-list would not get', () => {
    const request = fromClient('{"model":"chat","messages":[{"role":"user","content":"hi"}],"prediction":{"type":"content","content":"x"}}');
    expect(passedThroughChatBody(request, options({ allowedFields: new Set(['model', 'messages']) }))).toBeUndefined();
    expect(passedThroughChatBody(request, options({ allowedFields: new Set(['model', 'messages', 'prediction']) }))).toBeDefined();
  });
});
