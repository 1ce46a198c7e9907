/**
 * The e-mail channel: one message per notice over SMTP (nodemailer). The subject says what
 * happened and where; the body carries the summary lines and the details. Every message of one
 * incident names the same thread (`References` / `In-Reply-To` on the incident's dedup key),
 * so a mail client shows the resolve under its trigger. Errors name the channel and the SMTP
 * answer's code only: never the server's credentials.
 */
import { createHash } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { ChannelOptions } from '../options.js';
import type { Notice } from '../notice.js';
import { summaryLines, title } from './outgoing.js';

export type EmailChannel = Extract<ChannelOptions, { type: 'email' }>;

export interface EmailMessage {
  from: string;
  to: string[];
  subject: string;
  text: string;
  messageId: string;
  /** The incident's thread: the trigger's id, which every later message of it refers to. */
  references: string;
}

/** `<…@switchyard>` ids from the dedup key: stable across instances and reloads. */
function threadId(dedupKey: string): string {
  return `<incident-${createHash('sha256').update(dedupKey).digest('hex').slice(0, 32)}@switchyard>`;
}

export function emailMessage(n: Notice, channel: EmailChannel, now: number): EmailMessage {
  const thread = threadId(n.dedupKey);
  const details = Object.keys(n.details).length > 0 ? ['', 'details:', JSON.stringify(n.details, null, 2)] : [];
  return {
    from: channel.from,
    to: channel.to,
    subject: `${channel.subjectPrefix ? `${channel.subjectPrefix} ` : ''}${title(n)}`,
    text: [...summaryLines(n), `incident: ${n.dedupKey}`, ...details, ''].join('\n'),
    // The first message of an incident is the thread's root; the others refer to it.
    messageId: n.state === 'firing' && !n.reminder ? thread : `<${n.state}-${now}-${createHash('sha256').update(n.dedupKey).digest('hex').slice(0, 16)}@switchyard>`,
    references: thread,
  };
}

export interface MailSender {
  send(message: EmailMessage): Promise<void>;
  close(): void;
}

export class MailError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export function mailSender(channel: EmailChannel, timeoutMs: number): MailSender {
  const { smtp } = channel;
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure ?? smtp.port === 465,
    requireTLS: smtp.requireTLS,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.password } } : {}),
    tls: { rejectUnauthorized: !smtp.allowUnverifiedCertificate },
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    async send(message) {
      try {
        await transport.sendMail({ ...message, inReplyTo: message.messageId === message.references ? undefined : message.references });
      } catch (error) {
        const { responseCode, code } = error as { responseCode?: number; code?: string };
        // 4xx SMTP answers are transient by definition (RFC 5321); so is a connection that failed.
        if (responseCode !== undefined) throw new MailError(`the SMTP server answered ${responseCode}`, responseCode >= 400 && responseCode < 500);
        throw new MailError(code === 'EAUTH' ? 'the SMTP server refused the login' : (code ?? 'SMTP failure'), code !== 'EAUTH' && code !== 'EENVELOPE');
      }
    },
    close: () => transport.close(),
  };
}
