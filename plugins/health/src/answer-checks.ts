/**
 * The checks a quality probe's answer must pass: exact, contains, a regular expression, or JSON
 * valid against a JSON Schema (Ajv, compiled once per schema).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { AnswerCheck } from './options.js';

const ajv = new Ajv({ allErrors: false, strict: false });
const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: Record<string, unknown>): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  return validate;
}

export function isJsonSchema(schema: Record<string, unknown>): boolean {
  try {
    validatorOf(schema);
    return true;
  } catch {
    return false;
  }
}

/** The JSON in an answer: the whole text, or the body of its first ``` fence. */
function jsonOf(answer: string): { ok: true; value: unknown } | { ok: false } {
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(answer);
  try {
    return { ok: true, value: JSON.parse((fenced ? fenced[1] : answer).trim()) };
  } catch {
    return { ok: false };
  }
}

/** Undefined when the answer passes; else why it does not. */
export function checkAnswer(answer: string, check: AnswerCheck): string | undefined {
  if (typeof check === 'string') return answer.toLowerCase().includes(check.toLowerCase()) ? undefined : `does not contain ${JSON.stringify(check)}`;
  if ('pattern' in check || 'regex' in check) {
    const pattern = 'pattern' in check ? check.pattern : check.regex;
    return new RegExp(pattern, check.flags).test(answer) ? undefined : `does not match /${pattern}/${check.flags ?? ''}`;
  }
  if ('contains' in check) return answer.toLowerCase().includes(check.contains.toLowerCase()) ? undefined : `does not contain ${JSON.stringify(check.contains)}`;
  if ('exact' in check) {
    const same = check.ignoreCase ? answer.trim().toLowerCase() === check.exact.trim().toLowerCase() : answer.trim() === check.exact.trim();
    return same ? undefined : `is not exactly ${JSON.stringify(check.exact)}`;
  }
  const json = jsonOf(answer);
  if (!json.ok) return 'is not JSON';
  const validate = validatorOf(check.jsonSchema);
  if (validate(json.value)) return undefined;
  return `does not match the JSON Schema: ${ajv.errorsText(validate.errors, { dataVar: 'answer' })}`;
}

/** True when the answer passes the check (the older API; `checkAnswer` says why not). */
export function answerMatches(answer: string, check: AnswerCheck): boolean {
  return checkAnswer(answer, check) === undefined;
}
