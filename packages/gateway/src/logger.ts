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
