/** A line-per-event logger for `serve` that redacts the config's secrets from every line. */
import type { Logger, LogFields } from '@switchyard/gateway';
import type { Output } from './io.js';
import { redact } from './secrets.js';

function formatFields(fields: LogFields | undefined): string {
  if (!fields) return '';
  return Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' && !/[\s"=]/.test(v) ? v : JSON.stringify(v)}`)
    .join('');
}

export function lineLogger(out: Output, secrets: () => readonly string[], now: () => Date = () => new Date()): Logger {
  const write = (level: string) => (message: string, fields?: LogFields) => {
    out.write(redact(`${now().toISOString()} ${level} ${message}${formatFields(fields)}\n`, secrets()));
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
