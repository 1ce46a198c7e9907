/** The channel types and the one rule every channel shares: filter by alert and severity. */
import type { ChannelOptions } from '../options.js';
import type { Notice } from '../notice.js';
import { dingtalkFormat } from './dingtalk.js';
import { feishuFormat } from './feishu.js';
import type { Formatter, Outgoing } from './outgoing.js';
import { pagerdutyFormat } from './pagerduty.js';
import { slackFormat } from './slack.js';
import { webhookFormat } from './webhook.js';
import { wecomFormat } from './wecom.js';

export type { Outgoing } from './outgoing.js';
export { dingtalkSign, feishuSign } from './signing.js';
export { emailMessage, type EmailMessage } from './email.js';

/** The channels that POST to a URL (e-mail goes over SMTP: email.ts). */
export type HttpChannel = Exclude<ChannelOptions, { type: 'email' }>;

const FORMATS: { [T in HttpChannel['type']]: Formatter<Extract<HttpChannel, { type: T }>> } = {
  webhook: webhookFormat,
  slack: slackFormat,
  dingtalk: dingtalkFormat,
  feishu: feishuFormat,
  wecom: wecomFormat,
  pagerduty: pagerdutyFormat,
};

export function formatFor(channel: HttpChannel, notice: Notice, now: number): Outgoing {
  return (FORMATS[channel.type] as Formatter<HttpChannel>)(notice, channel, now);
}

export function accepts(channel: ChannelOptions, notice: Notice): boolean {
  // A resolve follows its trigger: it is filtered by the severity the incident fired with.
  const severity = notice.state === 'resolved' ? notice.incidentSeverity : notice.severity;
  if (channel.severities && !channel.severities.includes(severity)) return false;
  return !channel.alerts || channel.alerts.includes(notice.alert) || channel.alerts.includes(notice.incident);
}

/** How a channel is named in errors: never by its URL or key. */
export function channelLabel(channel: ChannelOptions, index: number): string {
  return channel.name ?? `${channel.type}[${index}]`;
}
