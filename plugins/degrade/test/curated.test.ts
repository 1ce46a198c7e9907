import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cache } from '../../cache/src/index.js';
import { degrade, loadCuratedAnswers, normalizeQuestion } from '../src/index.js';
import { ask, rig, type Rig } from './harness.js';

let current: Rig | undefined;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchyard-curated-'));
});
afterEach(async () => {
  await current?.close();
  current = undefined;
  await rm(dir, { recursive: true, force: true });
});

const YAML = `
answers:
  - question: "What are your opening hours?"
    questions: ["When are you open?"]
    answer: "We are open 9:00-17:00 CET, Monday to Friday."
  - question: "How do I reset my password?"
    answer: "Use the 'Forgot password' link on the sign-in page."
    models: [mini]
`;

async function answersFile(text = YAML, name = 'answers.yaml'): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, text);
  return file;
}

describe('curated answers as a degrade source', () => {
  it('answers a known question by its normalised key when every candidate failed', async () => {
    const file = await answersFile();
    current = await rig(() => [degrade({ curated: { file }, levels: [{ type: 'curated' }, { type: 'canned', text: 'busy' }] })]);
    current.primary.health = 'down';
    const hit = await current.pipeline.chat(ask('  what are your OPENING hours  '));
    expect(hit.choices[0].message.content).toBe('We are open 9:00-17:00 CET, Monday to Friday.');
    expect(hit.switchyard).toMatchObject({ degraded: 'curated', endpoint: 'curated' });
    expect((await current.pipeline.chat(ask('When are you open'))).switchyard.degraded).toBe('curated');
    // Another question falls through to the next level; a model-restricted answer only serves its model.
    expect((await current.pipeline.chat(ask('What is the meaning of life?'))).switchyard.degraded).toBe('canned');
    expect((await current.pipeline.chat(ask('How do I reset my password?'))).switchyard.degraded).toBe('canned');
  });

  it('matches exactly when asked to (whitespace at the ends aside)', async () => {
    const file = await answersFile(JSON.stringify([{ question: 'Status?', answer: 'All systems normal.' }]), 'answers.json');
    current = await rig(() => [degrade({ curated: { file, match: 'exact' }, levels: [{ type: 'curated' }] })]);
    current.primary.health = 'down';
    expect((await current.pipeline.chat(ask(' Status? '))).choices[0].message.content).toBe('All systems normal.');
    await expect(current.pipeline.chat(ask('status?'))).rejects.toThrow(/curated \(no curated answer for this question\)/);
  });

  it('with first: true answers before any vendor call, over a stored cache answer, and is not cached itself', async () => {
    const file = await answersFile();
    current = await rig(() => [cache(), degrade({ curated: { file, first: true } })]);
    const answer = await current.pipeline.chat(ask('When are you open?'));
    expect(answer.choices[0].message.content).toMatch(/We are open/);
    expect(answer.switchyard).toMatchObject({ endpoint: 'curated', attempts: 0, cached: true });
    expect(current.primary.server.requests).toHaveLength(0);
    // Other questions go to the vendor.
    expect((await current.pipeline.chat(ask('hello'))).choices[0].message.content).toBe('primary says hi');
    const stream = await current.pipeline.stream(ask('when are you open'));
    expect((await stream.collect()).choices[0].message.content).toMatch(/We are open/);
  });

  it('only the last user turn is matched, and only when it ends the conversation', async () => {
    const file = await answersFile();
    const answers = loadCuratedAnswers(file, 'normalized');
    const turns = (...messages: { role: 'user' | 'assistant' | 'system'; content: string }[]) => ({ model: 'chat', messages });
    expect(answers.answerFor(turns({ role: 'system', content: 'be brief' }, { role: 'user', content: 'When are you open?' }), 'chat')).toMatch(/open/);
    expect(answers.answerFor(turns({ role: 'user', content: 'When are you open?' }, { role: 'assistant', content: 'prefill' }), 'chat')).toBeUndefined();
    expect(answers.answerFor({ model: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'When are ' }, { type: 'text', text: 'you open?' }] }] }, 'chat')).toMatch(/open/);
    expect(answers.answerFor({ model: 'chat', messages: [{ role: 'user', content: [{ type: 'text', text: 'When are you open?' }, { type: 'image_url', image_url: { url: 'data:x' } }] }] }, 'chat')).toBeUndefined();
    expect(normalizeQuestion("What's  the\tPRICE?!")).toBe('whats the price');
    expect(normalizeQuestion('C++ vs. C#')).toBe('c++ vs c');
  });

  it('is read again when the pipeline is built again (a config reload)', async () => {
    const file = await answersFile();
    current = await rig(() => [degrade({ curated: { file, first: true } })]);
    expect((await current.pipeline.chat(ask('When are you open?'))).choices[0].message.content).toMatch(/9:00/);
    await current.close();
    await writeFile(file, YAML.replace('9:00-17:00', '8:00-20:00'));
    current = await rig(() => [degrade({ curated: { file, first: true } })]);
    expect((await current.pipeline.chat(ask('When are you open?'))).choices[0].message.content).toMatch(/8:00-20:00/);
  });

  it.each([
    ['missing file', null, /cannot read it \(ENOENT\)/],
    ['bad YAML', 'answers: [', /not YAML or JSON/],
    ['an entry without an answer', 'answers:\n  - question: hi\n', /answers\[0\]\.answer/],
    ['an entry without a question', '- answer: hi\n', /answers\[0\]: give question or questions/],
  ])('%s is a config error naming the file', async (_name, text, message) => {
    const file = text === null ? join(dir, 'absent.yaml') : await answersFile(text);
    const err = await rig(() => [degrade({ curated: { file }, levels: [{ type: 'curated' }] })]).catch((e) => e);
    expect(err).toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path: 'curated.file' });
    expect(err.message).toContain(file);
    expect(err.message).toMatch(message);
  });

  it('a curated level without the curated option is a config error', async () => {
    await expect(rig(() => [degrade({ levels: [{ type: 'curated' }] })])).rejects.toMatchObject({ code: 'SWITCHYARD_ERR_CONFIG', path: 'levels[0]' });
  });
});
