/**
 * Sends notices to one channel from a bounded queue, one at a time, so a request never waits
 * for a webhook: enqueue() only pushes. A failing webhook (5xx, 429, network, timeout) is
 * retried with exponential backoff on the pipeline's clock; errors name the channel, never
 * its URL (webhook URLs carry their token).
 */
import { sleep, type Clock } from '@switchyard/core';
import { request } from 'undici';
import { formatFor, type HttpChannel, type Outgoing } from './channels/index.js';
import { emailMessage, MailError, mailSender, type MailSender } from './channels/email.js';
import type { AlertsOptions, ChannelOptions } from './options.js';
import type { Notice } from './notice.js';

export class DeliveryError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
    this.name = 'DeliveryError';
  }
}

export interface DeliveryStats {
  sent: number;
  /** Given up on after the retries. */
  failed: number;
  /** Pushed out of a full queue. */
  dropped: number;
  /** Backoff waits started before a retry. */
  retries: number;
}

export class ChannelQueue {
  private readonly waiting: Notice[] = [];
  private running = false;
  private closed = false;
  private readonly stop = new AbortController();
  readonly stats: DeliveryStats = { sent: 0, failed: 0, dropped: 0, retries: 0 };
  private idle: Promise<void> = Promise.resolve();
  private readonly mail: MailSender | undefined;

  constructor(
    private readonly channel: ChannelOptions,
    readonly label: string,
    private readonly options: AlertsOptions['delivery'],
    private readonly clock: Clock,
    private readonly onError: (error: DeliveryError) => void,
  ) {
    this.mail = channel.type === 'email' ? mailSender(channel, options.timeoutMs) : undefined;
  }

  enqueue(notice: Notice): void {
    if (this.closed) return;
    if (this.waiting.length >= this.options.maxQueue) {
      this.waiting.shift();
      this.stats.dropped++;
    }
    this.waiting.push(notice);
    if (!this.running) this.idle = this.drain();
  }

  /** Resolves when the queue is empty (tests, graceful shutdown). */
  settled(): Promise<void> {
    return this.idle;
  }

  close(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.stop.abort();
    this.mail?.close();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      for (let notice = this.waiting.shift(); notice && !this.closed; notice = this.waiting.shift()) await this.deliver(notice);
    } finally {
      this.running = false;
    }
  }

  private async deliver(notice: Notice): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.send(notice);
        this.stats.sent++;
        return;
      } catch (error) {
        const failure = error instanceof DeliveryError ? error : new DeliveryError(`${this.label}: ${(error as Error).message}`, false);
        if (!failure.retryable || attempt >= this.options.retries || this.closed) {
          this.stats.failed++;
          this.onError(failure);
          return;
        }
        this.stats.retries++;
        try {
          await sleep(this.clock, this.options.backoffMs * 2 ** attempt, this.stop.signal);
        } catch {
          return;
        }
      }
    }
  }

  private async send(notice: Notice): Promise<void> {
    if (this.channel.type !== 'email') return this.post(formatFor(this.channel as HttpChannel, notice, this.clock.now()));
    try {
      await this.mail!.send(emailMessage(notice, this.channel, this.clock.now()));
    } catch (error) {
      throw error instanceof MailError ? new DeliveryError(`${this.label}: ${error.message}`, error.retryable) : error;
    }
  }

  private async post(out: Outgoing): Promise<void> {
    const timeout = new AbortController();
    const timer = this.clock.setTimeout(() => timeout.abort(), this.options.timeoutMs);
    const onStop = () => timeout.abort();
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    try {
      const res = await request(out.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...out.headers },
        body: JSON.stringify(out.body),
        signal: timeout.signal,
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) return;
      throw new DeliveryError(`${this.label}: the receiver answered HTTP ${res.statusCode}`, res.statusCode >= 500 || res.statusCode === 429 || res.statusCode === 408);
    } catch (error) {
      if (error instanceof DeliveryError) throw error;
      // undici's messages can name the address; the code says enough and leaks no token.
      const reason = timeout.signal.aborted ? `no answer within ${this.options.timeoutMs} ms` : ((error as NodeJS.ErrnoException).code ?? 'network error');
      throw new DeliveryError(`${this.label}: ${reason}`, true);
    } finally {
      this.clock.clearTimeout(timer);
      this.stop.signal.removeEventListener('abort', onStop);
    }
  }
}
