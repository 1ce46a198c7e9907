/**
 * The gateway logs through whatever pino-compatible logger the host application gives it
 * (`logger.info(fields, message)`); the library default is silent.
 */
export type LogFields = Record<string, unknown>;

type LogMethod = (fields: LogFields, message?: string) => void;

/** The part of pino's API the gateway uses: a pino logger fits as it is. */
export interface Logger {
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
  debug?: LogMethod;
}

const ignore: LogMethod = () => undefined;

export const silentLogger: Logger = { info: ignore, warn: ignore, error: ignore, debug: ignore };

/**
 * A logger may offer a faster way to write a line whose fields are all flat (strings, numbers,
 * booleans, undefined), such as the access line: `logger[LOGGER_FLAT_LINE](level, fields, msg)`.
 * It must write what `logger[level](fields, msg)` would (masked, filtered by level), except that
 * it may write the string fields named in `made` as they are: values the gateway made itself from
 * random bytes (a request id it gave), which hold no key, and which masking could only mangle (a
 * key's fragment there is chance). The gateway uses it when it is there (`switchyard serve`'s
 * logger has it).
 */
export const LOGGER_FLAT_LINE = Symbol.for('switchyard.logger-flat-line');

export type FlatLineWriter = (level: 'info' | 'warn', fields: LogFields, message: string, made?: readonly string[]) => void;

/** The logger's flat-line writer, if it has one. */
export function flatLineWriterOf(logger: Logger): FlatLineWriter | undefined {
  const writer = (logger as { [LOGGER_FLAT_LINE]?: unknown })[LOGGER_FLAT_LINE];
  return typeof writer === 'function' ? (writer as FlatLineWriter) : undefined;
}
