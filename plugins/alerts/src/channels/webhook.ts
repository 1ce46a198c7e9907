/** The generic JSON webhook: the payload every other channel is formatted from. */
import type { Formatter } from './outgoing.js';

export const webhookFormat: Formatter<{ url: string; headers?: Record<string, string> }> = (n, channel) => ({
  url: channel.url,
  headers: channel.headers,
  body: { alert: n.alert, severity: n.severity, state: n.state, deployment: n.deployment, endpoint: n.endpoint, model: n.model, message: n.message, at: n.at, details: { ...n.details, dedupKey: n.dedupKey, reminder: n.reminder } },
});
