/** Each channel's wire format, checked on a real loopback receiver. */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { pipelineWithAlerts, receiver, stopAll } from './receivers.js';
import { candidateRef } from '@switchyard/core';

afterEach(stopAll);

const open = (p: ReturnType<typeof pipelineWithAlerts>['pipeline'], deployment = 'primary/gpt-x') => p.events.emit('breaker:open', { deployment, until: p.clock.now() + 30_000, reason: '5 consecutive failures' });
const close = (p: ReturnType<typeof pipelineWithAlerts>['pipeline'], deployment = 'primary/gpt-x') => p.events.emit('breaker:close', { deployment });

describe('channel formats', () => {
  it('generic webhook: the documented payload, firing then resolved', async () => {
    const hook = await receiver();
    const { pipeline, settled } = pipelineWithAlerts({ channels: [{ type: 'webhook', url: `${hook.root}/hook`, headers: { 'x-team': 'llm' } }] });
    open(pipeline);
    await settled();
    close(pipeline);
    await settled();
    const [fired, resolved] = hook.bodies();
    expect(Object.keys(fired).sort()).toEqual(['alert', 'at', 'deployment', 'details', 'endpoint', 'message', 'model', 'severity', 'state']);
    expect(fired).toMatchObject({ alert: 'breaker-open', severity: 'critical', state: 'firing', deployment: 'primary/gpt-x', endpoint: 'primary', model: 'gpt-x', at: '2026-12-01T12:00:00.000Z' });
    expect(fired.message).toContain('primary/gpt-x');
    expect(fired.details).toMatchObject({ reason: '5 consecutive failures', dedupKey: 'breaker-open:primary/gpt-x', reminder: false });
    expect(resolved).toMatchObject({ alert: 'breaker-closed', state: 'resolved', severity: 'info', deployment: 'primary/gpt-x' });
    expect(hook.requests[0].headers['x-team']).toBe('llm');
    expect(hook.requests[0].headers['content-type']).toBe('application/json');
  });

  it('Slack: Block Kit header, section and context, with a text fallback', async () => {
    const hook = await receiver();
    const { pipeline, settled } = pipelineWithAlerts({ channels: [{ type: 'slack', url: `${hook.root}/services/T0/B0/secret` }] });
    open(pipeline);
    await settled();
    const [body] = hook.bodies();
    expect(body.text).toContain('breaker-open');
    expect(body.blocks.map((b: { type: string }) => b.type)).toEqual(['header', 'section', 'context']);
    expect(body.blocks[0].text).toEqual({ type: 'plain_text', text: '[CRITICAL] breaker-open on primary/gpt-x' });
    expect(body.blocks[1].text.type).toBe('mrkdwn');
    expect(body.blocks[2].elements[0].text).toContain('severity: critical');
  });

  it('DingTalk: markdown, and a signed URL (timestamp + base64 HMAC-SHA256 of "timestamp\\nsecret")', async () => {
    const hook = await receiver(200, '{"errcode":0}');
    const secret = 'SEC0123456789abcdef';
    const { pipeline, clock, settled } = pipelineWithAlerts({ channels: [{ type: 'dingtalk', url: `${hook.root}/robot/send?access_token=tok`, secret }] });
    open(pipeline);
    await settled();
    const url = new URL(hook.requests[0].path, hook.root);
    expect(url.searchParams.get('access_token')).toBe('tok');
    expect(url.searchParams.get('timestamp')).toBe(String(clock.now()));
    const expected = createHmac('sha256', secret).update(`${clock.now()}\n${secret}`).digest('base64');
    expect(url.searchParams.get('sign')).toBe(expected);
    // url-encoded in the query (base64 has + / =)
    expect(hook.requests[0].path).toContain(`sign=${encodeURIComponent(expected)}`);
    expect(hook.bodies()[0]).toMatchObject({ msgtype: 'markdown', markdown: { title: '[CRITICAL] breaker-open on primary/gpt-x' } });
  });

  it('Feishu/Lark: text message with timestamp (s) and sign in the body', async () => {
    const hook = await receiver(200, '{"code":0}');
    const secret = 'feishu-secret';
    const { pipeline, clock, settled } = pipelineWithAlerts({ channels: [{ type: 'feishu', url: `${hook.root}/open-apis/bot/v2/hook/abc`, secret }] });
    open(pipeline);
    await settled();
    const [body] = hook.bodies();
    const ts = Math.floor(clock.now() / 1000);
    expect(body.timestamp).toBe(String(ts));
    expect(body.sign).toBe(createHmac('sha256', `${ts}\n${secret}`).update('').digest('base64'));
    expect(body.msg_type).toBe('text');
    expect(body.content.text).toContain('breaker-open on primary/gpt-x');
  });

  it('WeCom: markdown content', async () => {
    const hook = await receiver(200, '{"errcode":0}');
    const { pipeline, settled } = pipelineWithAlerts({ channels: [{ type: 'wecom', url: `${hook.root}/cgi-bin/webhook/send?key=k` }] });
    open(pipeline);
    await settled();
    const [body] = hook.bodies();
    expect(body.msgtype).toBe('markdown');
    expect(body.markdown.content).toMatch(/^\*\*\[CRITICAL\] breaker-open on primary\/gpt-x\*\*\n> /);
  });

  it('PagerDuty Events v2: trigger and resolve share one dedup key', async () => {
    const hook = await receiver(202, '{"status":"success"}');
    const { pipeline, settled } = pipelineWithAlerts({ channels: [{ type: 'pagerduty', routingKey: 'R0UTINGKEY', url: `${hook.root}/v2/enqueue` }] });
    open(pipeline);
    await settled();
    close(pipeline);
    await settled();
    const [trigger, resolve] = hook.bodies();
    expect(trigger).toMatchObject({ routing_key: 'R0UTINGKEY', event_action: 'trigger', dedup_key: 'breaker-open:primary/gpt-x', payload: { severity: 'critical', source: 'primary/gpt-x', class: 'breaker-open', component: 'primary/gpt-x', group: 'primary' } });
    expect(trigger.payload.summary).toContain('breaker-open');
    expect(resolve).toEqual({ routing_key: 'R0UTINGKEY', event_action: 'resolve', dedup_key: trigger.dedup_key });
  });

  it('each channel filters by alert and severity; a resolved notice follows its incident', async () => {
    const all = await receiver();
    const breakers = await receiver();
    const warnings = await receiver();
    const { pipeline, settled } = pipelineWithAlerts({
      channels: [
        { type: 'webhook', url: `${all.root}/a` },
        { type: 'webhook', url: `${breakers.root}/b`, alerts: ['breaker-open'] },
        { type: 'webhook', url: `${warnings.root}/w`, severities: ['warning'] },
      ],
    });
    open(pipeline);
    pipeline.events.emit('health:change', { deployment: 'primary/gpt-x', healthy: false, score: 0.2 });
    await settled();
    close(pipeline);
    await settled();
    expect(all.bodies().map((b) => `${b.alert}:${b.state}`)).toEqual(['breaker-open:firing', 'health-unhealthy:firing', 'breaker-closed:resolved']);
    expect(breakers.bodies().map((b) => b.alert)).toEqual(['breaker-open', 'breaker-closed']);
    expect(warnings.bodies().map((b) => b.alert)).toEqual(['health-unhealthy']);
  });

  it('a channel filtered to critical gets the resolve of every incident it got the trigger of (PagerDuty, DingTalk)', async () => {
    const pd = await receiver(202, '{"status":"success"}');
    const ding = await receiver(200, '{"errcode":0}');
    const warnings = await receiver();
    const { pipeline, settled } = pipelineWithAlerts({
      channels: [
        { type: 'pagerduty', routingKey: 'R0UTINGKEY', url: `${pd.root}/v2/enqueue`, severities: ['critical'] },
        { type: 'dingtalk', url: `${ding.root}/robot/send?access_token=tok`, severities: ['critical'] },
        { type: 'webhook', url: `${warnings.root}/w`, severities: ['warning'] },
      ],
    });
    const candidate = candidateRef(pipeline.candidatesFor('chat')[0]);
    const attempt = (ok: boolean) =>
      pipeline.events.emit('attempt:end', {
        requestId: 'r',
        attempt: 1,
        candidate,
        ok,
        outcome: ok ? 'success' : 'key-failure',
        error: ok ? undefined : (Object.assign(new Error('no balance'), { kind: 'payment', status: 402 }) as never),
        latencyMs: 5,
        phase: 'pre-commit',
        stream: false,
        initiator: 'core',
      });
    open(pipeline);
    attempt(false);
    await settled();
    close(pipeline);
    attempt(true);
    await settled();
    expect(pd.bodies().map((b) => `${b.event_action}:${b.dedup_key}`)).toEqual([
      'trigger:breaker-open:primary/gpt-x',
      'trigger:key-parked:primary#0',
      'resolve:breaker-open:primary/gpt-x',
      'resolve:key-parked:primary#0',
    ]);
    expect(ding.bodies().map((b) => b.markdown.title)).toEqual(['[CRITICAL] breaker-open on primary/gpt-x', '[CRITICAL] key-parked on primary/gpt-x', '[RESOLVED] breaker-closed on primary/gpt-x', '[RESOLVED] key-parked on primary/gpt-x']);
    // A channel that never got the trigger gets no resolve either.
    expect(warnings.requests).toHaveLength(0);
  });

  it('rejects a channel with a bad URL or an unknown type, naming the field', async () => {
    expect(() => pipelineWithAlerts({ channels: [{ type: 'slack', url: 'not a url' }] })).toThrow(/channels\.0\.url/);
    expect(() => pipelineWithAlerts({ channels: [{ type: 'teams', url: 'https://x.invalid' } as never] })).toThrow(/channels\.0/);
    expect(() => pipelineWithAlerts({ channels: [] })).toThrow(/at least one channel/);
  });
});
