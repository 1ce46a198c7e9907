/** Feishu/Lark custom bot: a text message; with a secret, `timestamp` (seconds) and `sign` in the body. */
import { summaryLines, title, type Formatter } from './outgoing.js';
import { feishuSign } from './signing.js';

export const feishuFormat: Formatter<{ url: string; secret?: string }> = (n, channel, now) => {
  const seconds = Math.floor(now / 1000);
  const signature = channel.secret ? { timestamp: String(seconds), sign: feishuSign(seconds, channel.secret) } : {};
  return { url: channel.url, body: { ...signature, msg_type: 'text', content: { text: [title(n), ...summaryLines(n)].join('\n') } } };
};
