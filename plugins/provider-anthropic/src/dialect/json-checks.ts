/** Checks of a client's JSON that fail with a 400 naming the field (`messages[0].content[1].text: must be a string`). */
import { SwitchyardError } from '@switchyard/core';

export type Json = Record<string, unknown>;

export function invalid(path: string, message: string): SwitchyardError {
  return new SwitchyardError('invalid-request', `${path}: ${message}`, { path, status: 400, retryable: false });
}

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

export function requireString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw invalid(path, `must be a string, got ${typeOf(value)}`);
  return value;
}

export function optionalNumber(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(path, `must be a number, got ${typeOf(value)}`);
  return value;
}

export function blocksOf(value: unknown, path: string): Json[] {
  if (!Array.isArray(value)) throw invalid(path, `must be a string or an array of content blocks, got ${typeOf(value)}`);
  for (let j = 0; j < value.length; j++) {
    const block = value[j];
    if (!isObject(block) || typeof block.type !== 'string') throw invalid(`${path}[${j}]`, 'must be a content block: an object with a string "type"');
  }
  return value as Json[];
}
