import { describe, expect, it } from 'vitest';
import { applyErrorRules, bodyCodes, errorRuleSchema, ruleMatches } from './error-rules.js';
import { SwitchyardError } from './errors.js';
import { parseConfig } from './config.js';
import { createPipeline } from './pipeline.js';
import { testProvider } from '../test/support/test-provider.js';
import { startLoopback } from '../test/support/loopback.js';

const http = (status: number, body: unknown) => ({ status, json: body, text: JSON.stringify(body) });

describe('error rules', () => {
  it('matches on status, code (with a prefix wildcard) and text, all given fields at once', () => {
    const subject = { status: 400, codes: ['Throttling.RateQuota'], text: '{"message":"余额不足"}' };
    expect(ruleMatches({ status: 400 }, subject)).toBe(true);
    expect(ruleMatches({ status: 429 }, subject)).toBe(false);
    expect(ruleMatches({ code: 'throttling.*' }, subject)).toBe(true);
    expect(ruleMatches({ code: 'Throttling' }, subject)).toBe(false);
    expect(ruleMatches({ match: '余额不足' }, subject)).toBe(true);
    expect(ruleMatches({ match: '/余额|balance/' }, subject)).toBe(true);
    expect(ruleMatches({ status: 400, match: 'quota' }, subject)).toBe(false);
  });

  it('reads code-like strings at the top level and under error, numbers included', () => {
    expect(bodyCodes({ code: 'Arrearage', error: { code: 1113, type: 'x' } })).toEqual(['Arrearage', '1113', 'x']);
  });

  it('re-kinds a classified error, keeping its message and status', () => {
    const original = new SwitchyardError('bad-request', 'Access denied', { status: 400, provider: 'openai-compatible' });
    const fixed = applyErrorRules([{ status: 400, code: 'Arrearage', kind: 'payment' }], http(400, { code: 'Arrearage' }), original);
    expect(fixed).toMatchObject({ kind: 'payment', message: 'Access denied', status: 400, retryable: false });
    expect(applyErrorRules([{ match: 'nothing like it', kind: 'payment' }], http(400, { code: 'Arrearage' }), original)).toBe(original);
  });

  it('are checked at load with messages that name the path', () => {
    const config = (errors: string) => `endpoints:\n  - { name: a, provider: openai, apiKey: k, errors: ${errors} }\nmodels:\n  chat: [{ endpoint: a, model: m }]\n`;
    expect(() => parseConfig(config('[{ status: 400, kind: payment }, { match: "余额不足", kind: payment }]'))).not.toThrow();
    expect(() => parseConfig(config('[{ kind: payment }]'))).toThrow(/endpoints\[0\]\.errors\[0\].*at least one of status, code or match/);
    expect(() => parseConfig(config('[{ status: 400, kind: broke }]'))).toThrow(/endpoints\[0\]\.errors\[0\]\.kind.*expected one of auth, payment/);
    expect(() => parseConfig(config('[{ match: "/(/", kind: payment }]'))).toThrow(/endpoints\[0\]\.errors\[0\]\.match.*not a valid \/regular expression\//);
    expect(() => parseConfig(config('[{ status: 400, kind: payment, colour: red }]'))).toThrow(/endpoints\[0\]\.errors\[0\]/);
    expect(errorRuleSchema.safeParse({ status: 700, kind: 'payment' }).success).toBe(false);
  });

  it('run before the provider: a 400 the provider calls a bad request fails over as a key failure', async () => {
    const vendor = await startLoopback((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: '余额不足，请充值', code: 'balance' } }));
    });
    const backup = await startLoopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }));
    });
    const build = (errors?: { match: string; kind: 'payment' }[]) =>
      createPipeline({
        endpoints: [
          { name: 'a', provider: 'test', baseUrl: vendor.url, ...(errors ? { errors } : {}) },
          { name: 'b', provider: 'test', baseUrl: backup.url },
        ],
        models: { chat: [{ endpoint: 'a', model: 'm' }, { endpoint: 'b', model: 'm' }] },
        providers: [testProvider],
      });
    try {
      await expect(build().chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ kind: 'bad-request' });
      const answer = await build([{ match: '余额不足', kind: 'payment' }]).chat({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] });
      expect(answer.switchyard?.endpoint).toBe('b');
    } finally {
      await vendor.close();
      await backup.close();
    }
  });
});
