/**
 * Prompt-cache affinity through the Messages route, the done test of issue 36's cache bullet:
 * twenty turns of one Claude Code-shaped session (its session id in `metadata.user_id`, streams,
 * `cache_control` breakpoints) over two equal-weight Anthropic deployments stay on one while it
 * answers; when it fails, the session moves, and exactly one answer says the cache was lost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createPipeline, seededRandom, VirtualClock } from '@switchyard/core';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { router } from '@switchyard/plugin-router';
import { fails, raw, stopAll, vendor } from './support/harness.js';
import { AGENT_HEADERS, agentRequest, anthropicEvents, firstTurn, MODEL, startMessagesGateway, VENDOR_KEYS } from './support/messages.js';

afterEach(stopAll);

const overloaded = fails(529, 'Overloaded', { type: 'overloaded_error' });
const SESSION_USER = 'user_4f1c_account_2b7e41c0-5d1a-4f8e-9a3b-6c2d8e0f1a47_session_9d2e6b1a-3c4f-4e5d-8a9b-0c1d2e3f4a5b';

/** A loopback Anthropic that answers each turn with a short stream, or 529 while `down`. */
async function anthropic(name: string, down: Set<string>) {
  const served: number[] = [];
  const loop = await vendor((req, res, text) => {
    if (down.has(name)) return overloaded(req, res, text);
    served.push(JSON.parse(text).messages.length);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.end(anthropicEvents({ text: `answer from ${name}` }, 'claude-sonnet-4-5-20250929'));
  });
  return { name, url: loop.url, served };
}

/** Turn `n` of the session: the conversation so far, the newest user message as the moving cache breakpoint. */
function turn(n: number) {
  const messages: unknown[] = [...firstTurn];
  for (let i = 1; i <= n; i++) messages.push({ role: 'assistant', content: [{ type: 'text', text: `done ${i - 1}` }] }, { role: 'user', content: [{ type: 'text', text: `step ${i}`, cache_control: { type: 'ephemeral' } }] });
  return agentRequest(messages, { metadata: { user_id: SESSION_USER } });
}

describe('Messages: prompt-cache affinity', () => {
  it('keeps 20 turns of a Claude Code session on one of two equal deployments; after it fails exactly one answer carries x-switchyard-cache: lost', async () => {
    const down = new Set<string>();
    const vendors = [await anthropic('east', down), await anthropic('west', down)];
    const pipeline = createPipeline({
      endpoints: vendors.map((v) => ({ name: v.name, provider: 'anthropic', baseUrl: v.url, apiKey: VENDOR_KEYS.anthropic })),
      models: { [MODEL]: vendors.map((v) => ({ endpoint: v.name, model: 'claude-sonnet-4-5-20250929', priority: 0, weight: 1 })) },
      providers: [anthropicProvider],
      plugins: [router({ sticky: true })],
      clock: new VirtualClock(),
      random: seededRandom(36),
    });
    const { origin } = await startMessagesGateway(pipeline);
    const send = (n: number) => raw(origin, '/v1/messages?beta=true', { body: JSON.stringify(turn(n)), headers: AGENT_HEADERS });

    const answeredBy: string[] = [];
    for (let n = 0; n < 20; n++) {
      const answer = await send(n);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-switchyard-cache')).toBeNull();
      answeredBy.push(answer.headers.get('x-switchyard-endpoint')!);
    }
    expect(new Set(answeredBy).size).toBe(1);
    const [home, other] = answeredBy[0] === 'east' ? vendors : [vendors[1], vendors[0]];
    expect(home.served).toHaveLength(20);
    expect(other.served).toEqual([]);

    down.add(home.name);
    const lost: (string | null)[] = [];
    for (let n = 20; n < 26; n++) {
      const answer = await send(n);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-switchyard-endpoint')).toBe(other.name);
      lost.push(answer.headers.get('x-switchyard-cache'));
    }
    expect(lost).toEqual(['lost', null, null, null, null, null]);
    expect(other.served).toHaveLength(6);
    await pipeline.close();
  });
});
