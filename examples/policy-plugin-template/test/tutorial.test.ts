/** docs/first-policy-plugin.md shows this template's files as they are (skipped once the folder is copied out of the repository). */
import { existsSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const doc = new URL('../../../docs/first-policy-plugin.md', import.meta.url);

it.skipIf(!existsSync(doc))('the tutorial shows the plugin and its test as written here', () => {
  const blocks = [...readFileSync(doc, 'utf8').matchAll(/```ts\n([\s\S]*?)\n```/g)].map((m) => m[1]);
  for (const file of ['../src/index.ts', './guardrail.test.ts']) expect(blocks).toContain(readFileSync(new URL(file, import.meta.url), 'utf8').trimEnd());
});
