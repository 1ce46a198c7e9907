// The events it observes are declared by their owners in @switchyard/contracts.
import '@switchyard/contracts';
export { alerts, alerts as default, getAlerts, PLUGIN_NAME, type AlertsHandle } from './plugin.js';
export { alertsOptionsSchema, channelSchema, type AlertsOptions, type AlertsOptionsInput, type ChannelOptions } from './options.js';
export { ALERT_NAMES, SEVERITIES, type AlertName, type Severity, type Notice } from './notice.js';
export { dingtalkSign, emailMessage, feishuSign, formatFor, type EmailMessage } from './channels/index.js';
export type { DeliveryStats } from './delivery.js';
