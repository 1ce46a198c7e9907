/** docs/agents.md shows each dialect's translation table as the code has it: every entry, its treatment and words. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { TranslationTable } from '@switchyard/core/dialect';
import { MESSAGES_TABLE } from '../../../plugins/provider-anthropic/src/dialect/translation-table.js';
import { RESPONSES_TABLE } from '../../../plugins/provider-openai/src/dialect/responses/translation-table.js';

const doc = readFileSync(new URL('../../../docs/agents.md', import.meta.url), 'utf8');

function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  const end = doc.indexOf('\n## ', start + 3);
  return doc.slice(start, end < 0 ? undefined : end);
}

describe('docs/agents.md', () => {
  it.each([
    ['Anthropic Messages table', MESSAGES_TABLE],
    ['OpenAI Responses table', RESPONSES_TABLE],
  ] as [string, TranslationTable][])('the %s lists every entry of the code, no more', (title, table) => {
    const rows = section(title)
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| `|`$| \|$/g, '').replace(/\\\|/g, '|')));
    expect(rows).toEqual(Object.entries(table).map(([key, entry]) => [key, entry.treatment, entry.what]));
  });
});
