/**
 * Curated answers: questions an operator answered in a file (YAML or JSON), matched on the
 * request's last user turn, exactly or by a normalised key (case, whitespace and punctuation
 * do not count). Read when the pipeline is built, so a config reload reads the file again.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { SwitchyardError, type ChatMessage, type ChatRequest } from '@switchyard/core';
import { PLUGIN_NAME } from './levels.js';

export type MatchMode = 'normalized' | 'exact';

const entrySchema = z
  .object({
    question: z.string().min(1).optional(),
    /** More phrasings of the same question. */
    questions: z.array(z.string().min(1)).optional(),
    answer: z.string().min(1),
    /** Only for these logical models (default: every model). */
    models: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .refine((e) => e.question !== undefined || (e.questions?.length ?? 0) > 0, { message: 'give question or questions' });

/** `{ answers: [...] }`, or the list alone. */
const fileSchema = z.preprocess((raw) => (Array.isArray(raw) ? { answers: raw } : raw), z.object({ answers: z.array(entrySchema) }).strict());

/** Case, runs of whitespace and punctuation do not count ("What's  up?" = "whats up"). */
export function normalizeQuestion(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\p{P}+/gu, '').replace(/\s+/g, ' ').trim();
}

function textOf(message: ChatMessage): string | undefined {
  if (typeof message.content === 'string') return message.content;
  if (!Array.isArray(message.content)) return undefined;
  // A turn with an image or a file is not a question a text answer was written for.
  if (message.content.some((p) => p.type !== 'text')) return undefined;
  return message.content.map((p) => (p as { text: string }).text).join('');
}

function lastUserText(request: ChatRequest): string | undefined {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role === 'user') return textOf(message);
    if (message.role !== 'system' && message.role !== 'developer') return undefined;
  }
  return undefined;
}

interface Entry {
  answer: string;
  models?: readonly string[];
}

export class CuratedAnswers {
  private readonly byKey = new Map<string, Entry[]>();

  constructor(
    entries: z.output<typeof entrySchema>[],
    readonly match: MatchMode,
    readonly file: string,
  ) {
    for (const e of entries) {
      const entry: Entry = { answer: e.answer, models: e.models };
      for (const q of [...(e.question !== undefined ? [e.question] : []), ...(e.questions ?? [])]) {
        const key = this.key(q);
        const list = this.byKey.get(key) ?? [];
        list.push(entry);
        this.byKey.set(key, list);
      }
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  private key(text: string): string {
    return this.match === 'exact' ? text.trim() : normalizeQuestion(text);
  }

  /** The answer for the request's last user turn (when that turn ends the conversation), if one was written. */
  answerFor(request: ChatRequest, model: string): string | undefined {
    const text = lastUserText(request);
    if (text === undefined) return undefined;
    const found = this.byKey.get(this.key(text));
    return found?.find((e) => !e.models || e.models.includes(model))?.answer;
  }
}

/** Reads and checks the file; a problem is a config error naming the file and the entry. */
export function loadCuratedAnswers(file: string, match: MatchMode): CuratedAnswers {
  const resolved = path.resolve(file);
  const fail = (message: string, cause?: unknown) => new SwitchyardError('config', `${PLUGIN_NAME}: curated.file ${resolved}: ${message}`, { code: 'SWITCHYARD_ERR_CONFIG', path: 'curated.file', cause });
  let text: string;
  try {
    text = readFileSync(resolved, 'utf8');
  } catch (cause) {
    throw fail(`cannot read it (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  let raw: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    raw = parse(text);
  } catch (cause) {
    throw fail(`not YAML or JSON: ${(cause as Error).message.split('\n')[0]}`, cause);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fail(`${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '') || '(root)'}: ${issue.message}`);
  }
  return new CuratedAnswers(parsed.data.answers, match, resolved);
}
