/** DingTalk custom robot: markdown message; with a secret, `timestamp` and `sign` on the URL. */
import { summaryLines, title, type Formatter } from './outgoing.js';
import { dingtalkSign } from './signing.js';

export const dingtalkFormat: Formatter<{ url: string; secret?: string }> = (n, channel, now) => {
  let url = channel.url;
  if (channel.secret) {
    const sep = url.includes('?') ? '&' : '?';
    url = `${url}${sep}timestamp=${now}&sign=${encodeURIComponent(dingtalkSign(now, channel.secret))}`;
  }
  return { url, body: { msgtype: 'markdown', markdown: { title: title(n), text: [`### ${title(n)}`, ...summaryLines(n)].join('\n\n') } } };
};
