/**
 * The logger of `switchyard serve`: pino JSON lines on stdout (what ELK and Loki ingest), a
 * short human line per event when stdout is a terminal. Level: LOG_LEVEL, else the config's
 * `server.logLevel`, else info. Every line is masked of the config's secrets before it is
 * written (pino's streamWrite hook runs the gateway's one masking serializer), and pino's
 * `redact` drops headers and config secrets by path as well.
 */
import { pino, type Logger as PinoLogger } from 'pino';
import { SecretMasker } from '@switchyard/gateway';
import type { Output } from './io.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Paths pino censors whatever their value (a header or config object passed to a log call). */
export const REDACT_PATHS = [
  'headers.authorization',
  'headers["x-api-key"]',
  'headers["api-key"]',
  'headers["x-goog-api-key"]',
  '*.headers.authorization',
  '*.headers["x-api-key"]',
  '*.headers["api-key"]',
  '*.headers["x-goog-api-key"]',
  'apiKey',
  'apiKeys',
  '*.apiKey',
  '*.apiKeys',
  'config.server.apiKeys',
  'config.endpoints[*].apiKey',
  'config.endpoints[*].apiKeys',
  'config.endpoints[*].headers',
];

export interface ServeLoggerOptions {
  out: Output & { isTTY?: boolean };
  secrets: () => readonly string[];
  level?: string;
  /** Human-readable lines instead of JSON (default: whether `out` is a terminal). */
  pretty?: boolean;
}

export function resolveLogLevel(env: Record<string, string | undefined>, configured: string | undefined): LogLevel {
  const wanted = (env.LOG_LEVEL ?? configured ?? 'info').toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(wanted) ? (wanted as LogLevel) : 'info';
}

const PLAIN_KEYS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** `12:00:01.123 WARN upstream attempt failed endpoint=a status=503 …` from one pino JSON line. */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const time = typeof entry.time === 'string' ? entry.time.slice(11, 23) : '';
  const fields = Object.entries(entry)
    .filter(([k, v]) => !PLAIN_KEYS.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${String(entry.level).toUpperCase().padEnd(5)} ${String(entry.msg ?? '')}${fields ? ` ${fields}` : ''}\n`;
}

export function createServeLogger(options: ServeLoggerOptions): PinoLogger {
  const masker = new SecretMasker(options.secrets);
  const pretty = options.pretty ?? options.out.isTTY === true;
  const destination = { write: (line: string) => void options.out.write(pretty ? prettyLine(line) : line) };
  return pino(
    {
      level: options.level ?? 'info',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      hooks: { streamWrite: (line) => masker.text(line) },
    },
    destination,
  );
}
