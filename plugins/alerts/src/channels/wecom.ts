/** WeCom (企业微信) group robot: a markdown message. */
import { summaryLines, title, type Formatter } from './outgoing.js';

export const wecomFormat: Formatter<{ url: string }> = (n, channel) => ({
  url: channel.url,
  body: { msgtype: 'markdown', markdown: { content: [`**${title(n)}**`, ...summaryLines(n).map((l) => `> ${l}`)].join('\n') } },
});
