/**
 * The logger of `switchyard serve`: pino JSON lines on stdout (what ELK and Loki ingest), a
 * short human line per event when stdout is a terminal. Level: LOG_LEVEL, else the config's
 * `server.logLevel`, else info. Every log call's fields and message go through the gateway's
 * one masking serializer before pino sees them: the config's secrets and any 8+ character
 * piece of one are masked, credential fields (headers, `apiKey`s, endpoint headers) censored.
 * pino's own `redact` is not used: it re-parses its paths on every line, which cost more than
 * the rest of an access line together.
 */
import { pino, type Logger as PinoLogger } from 'pino';
import { LOGGER_FLAT_LINE, LOGGER_MASKER, SecretMasker, type FlatLineWriter, type LogFields } from '@switchyard/gateway';
import type { Output } from './io.js';
import { isoTimestamp } from './iso-timestamp.js';
import { LineBatch } from './line-batch.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface ServeLoggerOptions {
  /** Where lines go. An output with a file descriptor (stdout) gets its lines in batches (line-batch.ts). */
  out: Output & { isTTY?: boolean; fd?: number };
  secrets: () => readonly string[];
  /** Text the CLI writes itself (the config's path): a key fragment within it is not masked. */
  ownText?: () => readonly string[];
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

export interface ServeLogger extends PinoLogger {
  /** Writes the lines still waiting for the end of the event loop's turn (shutdown). */
  flushLines(): void;
}

export function createServeLogger(options: ServeLoggerOptions): ServeLogger {
  const masker = new SecretMasker(options.secrets, options.ownText);
  const pretty = options.pretty ?? options.out.isTTY === true;
  // stdout (an output with a descriptor) gets one write per turn of the event loop; a terminal and a test's sink get every line as it comes.
  const batch = typeof options.out.fd === 'number' && !pretty ? new LineBatch(options.out) : undefined;
  const destination = batch ?? { write: (line: string) => void options.out.write(pretty ? prettyLine(line) : line) };
  const timestamp = isoTimestamp();
  const logger = pino(
    {
      level: options.level ?? 'info',
      timestamp,
      formatters: { level: (label) => ({ level: label }) },
      hooks: {
        logMethod(args, method) {
          const masked = args.map((arg) => masker.value(arg)) as Parameters<typeof method>;
          method.apply(this, masked);
        },
      },
    },
    destination,
  );
  // A child's bindings are written with every line of it: masked once, when it is made
  // (children are made from their parent's prototype, so theirs are masked as well).
  const child = logger.child;
  logger.child = function (this: PinoLogger, bindings, childOptions) {
    return child.call(this, masker.value(bindings) as typeof bindings, childOptions);
  } as typeof child;
  // The gateway adds its secrets to this masker rather than masking each line a second time.
  const flushLines = () => batch?.flush();
  const flat = batch ? flatLineWriter(logger, masker, timestamp, batch) : undefined;
  return Object.assign(logger, { [LOGGER_MASKER]: masker, flushLines }, flat ? { [LOGGER_FLAT_LINE]: flat } : {});
}

const LEVEL_PREFIX = { info: '{"level":"info"', warn: '{"level":"warn"' } as const;

/**
 * The access line without pino's generic serializer: fields of strings, numbers and booleans,
 * each string masked as the log call's hook would mask it (but those the gateway says it `made`:
 * a request id it gave, whose masking was a third of a line's cost with a key configured),
 * written as the very JSON pino writes (level, time, the bindings, the fields in order, msg). An
 * object field goes the usual way.
 */
function flatLineWriter(logger: PinoLogger, masker: SecretMasker, timestamp: () => string, out: LineBatch): FlatLineWriter {
  const bindings = (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym] ?? '';
  const keys = new Map<string, string>();
  const keyText = (key: string) => {
    let text = keys.get(key);
    if (text === undefined) {
      text = `,${JSON.stringify(key)}:`;
      if (keys.size < 256) keys.set(key, text);
    }
    return text;
  };
  return (level: 'info' | 'warn', fields: LogFields, message: string, made?: readonly string[]) => {
    if (!logger.isLevelEnabled(level)) return;
    masker.refreshSecrets();
    let line = LEVEL_PREFIX[level] + timestamp() + bindings;
    for (const key in fields) {
      const value = fields[key];
      switch (typeof value) {
        case 'undefined':
          continue;
        case 'string':
          line += keyText(key) + JSON.stringify(made !== undefined && made.includes(key) ? value : masker.maskedField(key, value));
          continue;
        case 'number':
          line += keyText(key) + (Number.isFinite(value) ? String(value) : 'null');
          continue;
        case 'boolean':
          line += keyText(key) + (value ? 'true' : 'false');
          continue;
        default:
          // Not flat after all: the logger's own path, which masks objects whole.
          logger[level](fields, message);
          return;
      }
    }
    out.write(`${line},"msg":${JSON.stringify(masker.maskedText(message))}}\n`);
  };
}
