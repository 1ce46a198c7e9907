/** PagerDuty Events API v2: trigger on firing, resolve on resolved, one dedup key per incident. */
import type { Formatter } from './outgoing.js';

const PD_SEVERITY = { critical: 'critical', warning: 'warning', info: 'info' } as const;

export const pagerdutyFormat: Formatter<{ url: string; routingKey: string }> = (n, channel) => {
  if (n.state === 'resolved') return { url: channel.url, body: { routing_key: channel.routingKey, event_action: 'resolve', dedup_key: n.dedupKey } };
  return {
    url: channel.url,
    body: {
      routing_key: channel.routingKey,
      event_action: 'trigger',
      dedup_key: n.dedupKey,
      payload: {
        summary: `${n.alert}: ${n.message}`.slice(0, 1024),
        source: n.deployment ?? 'switchyard',
        severity: PD_SEVERITY[n.severity],
        timestamp: n.at,
        component: n.deployment ?? undefined,
        group: n.endpoint ?? undefined,
        class: n.alert,
        custom_details: n.details,
      },
    },
  };
};
