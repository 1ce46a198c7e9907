/** Slack incoming webhook: a header, the message, and a context line (Block Kit). */
import { summaryLines, title, type Formatter } from './outgoing.js';

export const slackFormat: Formatter<{ url: string }> = (n, channel) => {
  const [message, ...context] = summaryLines(n);
  return {
    url: channel.url,
    body: {
      text: `${title(n)}: ${n.message}`,
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: title(n).slice(0, 150) } },
        { type: 'section', text: { type: 'mrkdwn', text: message } },
        { type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) },
      ],
    },
  };
};
