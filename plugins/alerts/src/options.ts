import { z } from 'zod';
import { ALERT_NAMES, SEVERITIES } from './notice.js';

const filters = {
  /** Only these alerts (a resolved notice passes when its incident's alert is listed). Default: all. */
  alerts: z.array(z.enum(ALERT_NAMES)).optional(),
  /** Only these severities. Default: all. */
  severities: z.array(z.enum(SEVERITIES)).optional(),
  /** A label for errors and the status page; the URL is never shown. */
  name: z.string().min(1).optional(),
};

const url = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

export const channelSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('webhook'), url, headers: z.record(z.string(), z.string()).optional(), ...filters }).strict(),
  z.object({ type: z.literal('slack'), url, ...filters }).strict(),
  /** `secret`: the robot's signing secret ("加签"); the URL then carries timestamp and sign. */
  z.object({ type: z.literal('dingtalk'), url, secret: z.string().min(1).optional(), ...filters }).strict(),
  z.object({ type: z.literal('feishu'), url, secret: z.string().min(1).optional(), ...filters }).strict(),
  z.object({ type: z.literal('wecom'), url, ...filters }).strict(),
  z.object({ type: z.literal('pagerduty'), routingKey: z.string().min(1), url: url.default('https://events.pagerduty.com/v2/enqueue'), ...filters }).strict(),
  /** E-mail over SMTP (nodemailer): one message per notice, a resolve threaded under its trigger. */
  z
    .object({
      type: z.literal('email'),
      smtp: z
        .object({
          host: z.string().min(1),
          port: z.number().int().min(1).max(65535).default(587),
          /** TLS from the first byte (port 465); otherwise STARTTLS when the server offers it. Default: port 465. */
          secure: z.boolean().optional(),
          /** Refuse to send unless the connection is upgraded with STARTTLS. */
          requireTLS: z.boolean().default(false),
          user: z.string().min(1).optional(),
          password: z.string().min(1).optional(),
          /** Accept a server certificate that does not verify (a self-signed relay); default false. */
          allowUnverifiedCertificate: z.boolean().default(false),
        })
        .strict()
        .refine((s) => (s.user === undefined) === (s.password === undefined), { message: 'give both user and password, or neither', path: ['password'] }),
      from: z.string().min(3),
      to: z.array(z.string().min(3)).min(1, 'at least one recipient is needed'),
      /** Put before every subject. */
      subjectPrefix: z.string().default('[switchyard]'),
      ...filters,
    })
    .strict(),
]);

const window = (count: number, windowMs: number) => z.object({ count: z.number().int().positive().default(count), windowMs: z.number().int().positive().default(windowMs) }).strict().prefault({});

export const alertsOptionsSchema = z
  .object({
    channels: z.array(channelSchema).min(1, 'at least one channel is needed'),
    /** A firing incident is announced again at most this often (default 4 h). */
    repeatMs: z.number().int().positive().default(4 * 3_600_000),
    /** Budget levels (share of the limit) that alert; the quota plugin's thresholds must include them. */
    budgetLevels: z.array(z.number().gt(0).lte(1)).default([0.8, 1]),
    successRate: z
      .object({
        target: z.number().gt(0).lte(1).default(0.95),
        windowMs: z.number().int().positive().default(300_000),
        /** Fewer attempts than this in the window say nothing. */
        minAttempts: z.number().int().positive().default(20),
      })
      .strict()
      .prefault({}),
    /**
     * Requests of one model that failed on every candidate: at least `count` within `windowMs`,
     * and at least `share` of that model's requests in the window. One request that fails
     * everywhere (a pathological prompt, a blip) pages nobody.
     */
    allCandidatesFailed: z
      .object({
        count: z.number().int().positive().default(5),
        windowMs: z.number().int().positive().default(300_000),
        share: z.number().gt(0).lte(1).default(0.05),
      })
      .strict()
      .prefault({}),
    /** `count` 429s on one deployment within `windowMs`. */
    rateLimited: window(10, 60_000),
    /** A degrade level used `count` times within `windowMs`. */
    degraded: window(5, 300_000),
    delivery: z
      .object({
        timeoutMs: z.number().int().positive().default(5_000),
        /** Attempts after the first when a webhook fails (5xx, 429, network). */
        retries: z.number().int().min(0).max(10).default(3),
        backoffMs: z.number().int().positive().default(1_000),
        /** Notices waiting per channel; the oldest is dropped beyond it. */
        maxQueue: z.number().int().positive().default(500),
      })
      .strict()
      .prefault({}),
    storePrefix: z.string().min(1).default('switchyard:alerts'),
  })
  .strict();

export type AlertsOptions = z.output<typeof alertsOptionsSchema>;
export type AlertsOptionsInput = z.input<typeof alertsOptionsSchema>;
export type ChannelOptions = z.output<typeof channelSchema>;
