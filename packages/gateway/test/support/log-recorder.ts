/** A host logger that keeps every line (the gateway accepts any pino-compatible logger). */
import type { Logger, LogFields } from '../../src/index.js';

export interface LogLine extends LogFields {
  level: 'info' | 'warn' | 'error' | 'debug';
  msg?: string;
}

export function recordingLogger(): Logger & { lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (fields: LogFields, msg?: string) => void lines.push({ ...fields, level, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), text: () => JSON.stringify(lines) };
}
