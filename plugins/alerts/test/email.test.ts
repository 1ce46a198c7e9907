/**
 * The e-mail channel against a real SMTP server on loopback (smtp-server): a breaker incident
 * and its resolve arrive as two messages of one thread, with login; a permanent SMTP refusal is
 * given up at once, a transient one retried on the clock; nothing names the password.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getAlerts } from '../src/index.js';
import { pipelineWithAlerts, stopAll } from './receivers.js';

interface Received {
  from: string;
  to: string[];
  user?: string;
  raw: string;
}

const servers: SMTPServer[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/** A loopback SMTP server; `answer` may refuse a message (an SMTP code) instead of taking it. */
async function smtpServer(options: Partial<SMTPServerOptions> & { answer?: (n: number) => number | undefined } = {}): Promise<{ port: number; mails: Received[] }> {
  const mails: Received[] = [];
  let n = 0;
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === 'alerts' && auth.password === 'smtp-pass-0123') return callback(null, { user: auth.username });
      callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, callback) {
      let raw = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (raw += chunk));
      stream.on('end', () => {
        const refused = options.answer?.(++n);
        if (refused) return callback(Object.assign(new Error('refused by the test'), { responseCode: refused }));
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), user: session.user as string | undefined, raw });
        callback();
      });
    },
    ...options,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, mails };
}

/** A header of a raw message, unfolded. */
const header = (raw: string, name: string) => new RegExp(`^${name}: (.*(?:\\r\\n[ \\t].*)*)`, 'im').exec(raw)?.[1].replace(/\r\n[ \t]/g, ' ');
/** The text body, quoted-printable decoded. */
const body = (raw: string) =>
  raw
    .slice(raw.indexOf('\r\n\r\n') + 4)
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

const email = (port: number, extra: Record<string, unknown> = {}) => ({ type: 'email' as const, smtp: { host: '127.0.0.1', port, user: 'alerts', password: 'smtp-pass-0123' }, from: 'switchyard@example.test', to: ['ops@example.test', 'oncall@example.test'], ...extra });

describe('e-mail channel', () => {
  it('sends the incident and its resolve as two messages of one thread, logged in', async () => {
    const smtp = await smtpServer();
    const { pipeline, settled } = pipelineWithAlerts({ channels: [email(smtp.port, { severities: ['critical'] })] });
    pipeline.events.emit('breaker:open', { deployment: 'primary/gpt-x', until: pipeline.clock.now() + 30_000, reason: '5 consecutive failures' });
    await settled();
    pipeline.events.emit('breaker:close', { deployment: 'primary/gpt-x' });
    await settled();
    expect(smtp.mails).toHaveLength(2);
    const [fired, resolved] = smtp.mails;
    expect(fired).toMatchObject({ from: 'switchyard@example.test', to: ['ops@example.test', 'oncall@example.test'], user: 'alerts' });
    expect(header(fired.raw, 'Subject')).toBe('[switchyard] [CRITICAL] breaker-open on primary/gpt-x');
    expect(body(fired.raw)).toContain('circuit breaker opened for primary/gpt-x (5 consecutive failures)');
    expect(body(fired.raw)).toContain('severity: critical');
    expect(body(fired.raw)).toContain('"reason": "5 consecutive failures"');
    // The resolve follows its trigger through the critical-only filter, in the same thread.
    expect(header(resolved.raw, 'Subject')).toBe('[switchyard] [RESOLVED] breaker-closed on primary/gpt-x');
    const root = header(fired.raw, 'Message-ID');
    expect(root).toMatch(/^<incident-[0-9a-f]{32}@switchyard>$/);
    expect(header(resolved.raw, 'In-Reply-To')).toBe(root);
    expect(header(resolved.raw, 'References')).toBe(root);
    expect(header(resolved.raw, 'Message-ID')).not.toBe(root);
    expect(fired.raw + resolved.raw).not.toContain('smtp-pass-0123');
    expect(getAlerts(pipeline)!.stats()['email[0]']).toEqual({ sent: 2, failed: 0, dropped: 0, retries: 0 });
  });

  it('gives up at once on a permanent refusal and a bad login, retries a transient one on the clock, and never names the password', async () => {
    const smtp = await smtpServer({ answer: (n) => (n === 1 ? 451 : n === 2 ? 550 : undefined) });
    const { pipeline, clock, settled } = pipelineWithAlerts({
      delivery: { retries: 2, backoffMs: 1000 },
      channels: [email(smtp.port, { name: 'ops-mail' }), email(smtp.port, { name: 'bad-login', smtp: { host: '127.0.0.1', port: smtp.port, user: 'alerts', password: 'wrong-pass-9876' } })],
    });
    const errors: string[] = [];
    pipeline.events.on('plugin-error', ({ error }) => errors.push((error as Error).message));
    pipeline.events.emit('health:change', { deployment: 'primary/gpt-x', healthy: false, score: 0.1 });
    // The first message is refused with 451 (try again later): it waits out its backoff on the clock.
    await vi.waitFor(() => expect(getAlerts(pipeline)!.stats()['ops-mail'].retries).toBe(1), { timeout: 5_000, interval: 10 });
    expect(smtp.mails).toHaveLength(0);
    await clock.advance(1000);
    // The retry gets 550 (mailbox unavailable): permanent, given up without another try.
    await settled();
    expect(getAlerts(pipeline)!.stats()).toEqual({ 'ops-mail': { sent: 0, failed: 1, dropped: 0, retries: 1 }, 'bad-login': { sent: 0, failed: 1, dropped: 0, retries: 0 } });
    expect(errors.sort()).toEqual(['bad-login: the SMTP server answered 535', 'ops-mail: the SMTP server answered 550']);
    expect(errors.join()).not.toMatch(/pass-0123|pass-9876/);
  });

  it('rejects an incomplete channel, naming the field', () => {
    expect(() => pipelineWithAlerts({ channels: [{ type: 'email', smtp: { host: 'smtp.example.test' }, from: 'a@example.test', to: [] } as never] })).toThrow(/channels\.0\.to: at least one recipient/);
    expect(() => pipelineWithAlerts({ channels: [{ type: 'email', smtp: { host: 'smtp.example.test', user: 'only-user' }, from: 'a@example.test', to: ['b@example.test'] } as never] })).toThrow(/give both user and password/);
  });
});
