/**
 * Property tests: generated hostile bodies (deep, wide, wrong types in every field) against the
 * validator and each provider's request builder. Whatever comes in, the only failure allowed is
 * a coded request error; nothing may hang, overflow the stack or throw something uncoded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSwitchyardError, outcomeOf, type ChatRequest, type ProviderV1 } from '@switchyard/core';
import { candidatesForDeployment } from '@switchyard/core/internal';
import { validateChatRequest } from '@switchyard/core/internal';
import { anthropicProvider } from '@switchyard/provider-anthropic';
import { geminiProvider } from '@switchyard/provider-gemini';
import { azureProvider, openaiCompatibleProvider, openaiProvider } from '@switchyard/provider-openai';

const PROVIDERS: ProviderV1[] = [openaiProvider, azureProvider, openaiCompatibleProvider, anthropicProvider, geminiProvider];

/** `value` wrapped in `depth` arrays or objects. */
const nested = fc.tuple(fc.integer({ min: 0, max: 10_000 }), fc.boolean(), fc.anything({ maxDepth: 2 })).map(([depth, arrays, leaf]) => {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = arrays ? [value] : { p: value };
  return value;
});
const wide = fc.tuple(fc.integer({ min: 0, max: 20_000 }), fc.anything({ maxDepth: 1 })).map(([n, item]) => new Array(n).fill(item));
const hostile = fc.oneof({ weight: 3, arbitrary: fc.anything({ maxDepth: 3, withObjectString: true, withNullPrototype: true }) }, nested, wide);

const schema: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ type: fc.constantFrom('string', 'number', 'object', 'array', ['string', 'null'], 'null', 5) }, { requiredKeys: [] }),
    fc.record({ type: fc.constant('object'), properties: fc.dictionary(fc.string({ maxLength: 4 }), tie('node'), { maxKeys: 4 }), required: hostile }, { requiredKeys: ['type'] }),
    fc.record({ anyOf: fc.array(tie('node'), { maxLength: 3 }), items: tie('node'), $ref: fc.constantFrom('#/$defs/a', '#/$defs/b', '#/definitions/a', 'http://x', '#/$defs/%2e') }, { requiredKeys: [] }),
    hostile,
  ),
})).node;

const withDefs = fc.record({ type: fc.constant('object'), $defs: fc.record({ a: schema, b: schema }), properties: fc.dictionary(fc.string({ maxLength: 3 }), schema, { maxKeys: 3 }) });

const message = fc.oneof(
  fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'robot', 5), content: fc.oneof(fc.string(), fc.constant(null), fc.array(fc.record({ type: fc.constantFrom('text', 'image_url', 'input_audio', 'file', 7), text: hostile, image_url: fc.oneof(fc.record({ url: fc.oneof(fc.webUrl(), fc.constant('data:image/png;base64,AAAA'), fc.string()) }), hostile) }, { requiredKeys: ['type'] }), { maxLength: 3 }), hostile), tool_call_id: fc.oneof(fc.string(), hostile), tool_calls: fc.oneof(fc.array(fc.record({ id: fc.string(), type: fc.constant('function'), function: fc.record({ name: fc.string(), arguments: fc.oneof(fc.json(), fc.string(), hostile) }) }), { maxLength: 2 }), hostile) }, { requiredKeys: ['role'] }),
  hostile,
);

const body = fc.record(
  {
    model: fc.oneof(fc.constant('chat'), hostile),
    messages: fc.oneof({ weight: 4, arbitrary: fc.array(message, { minLength: 1, maxLength: 4 }) }, hostile),
    tools: fc.oneof(fc.array(fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.oneof(fc.string(), hostile), description: fc.oneof(fc.string(), hostile), parameters: fc.oneof(schema, withDefs) }, { requiredKeys: ['name'] }) }), { maxLength: 3 }), hostile),
    tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), fc.record({ type: fc.constant('function'), function: fc.record({ name: fc.string() }) }), hostile),
    response_format: fc.oneof(fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema'), json_schema: fc.record({ name: fc.string(), schema: fc.oneof(schema, withDefs) }) }), hostile),
    temperature: fc.oneof(fc.double(), hostile),
    max_tokens: fc.oneof(fc.integer(), hostile),
    stop: fc.oneof(fc.string(), fc.array(fc.string()), hostile),
    stream_options: hostile,
    metadata: hostile,
    switchyard: fc.oneof(fc.record({ tags: fc.oneof(fc.dictionary(fc.string(), fc.string()), hostile), timeouts: fc.oneof(fc.record({ idleMs: fc.oneof(fc.double(), hostile) }), hostile), tier: hostile }, { requiredKeys: [] }), hostile),
    extra_field: hostile,
  },
  { requiredKeys: ['model', 'messages'] },
);

function expectCodedRequestError(error: unknown): void {
  if (!isSwitchyardError(error)) throw new Error(`uncoded ${String((error as Error)?.name)}: ${String((error as Error)?.message)}`);
  expect(['request-failure', 'ignored']).toContain(outcomeOf(error));
  if (outcomeOf(error) === 'ignored') expect(error.kind).toBe('config');
  expect(error.code).toMatch(/^SWITCHYARD_ERR_/);
}

function target(provider: ProviderV1) {
  return candidatesForDeployment({ name: 'e', provider: provider.id, apiKey: 'k-0123456789' }, { endpoint: 'e', model: 'm' }, provider)[0];
}

describe('hostile bodies (fast-check)', () => {
  it('the validator accepts or throws a coded 400, never anything else', () => {
    fc.assert(
      fc.property(body, (b) => {
        try {
          validateChatRequest(b);
        } catch (error) {
          expectCodedRequestError(error);
          expect((error as { status?: number }).status).toBe(400);
        }
      }),
      { numRuns: 300, seed: 16 },
    );
  });

  for (const provider of PROVIDERS) {
    it(`${provider.id}: buildRequest of whatever the validator lets through builds JSON or throws a coded request error`, () => {
      const candidate = target(provider);
      let built = 0;
      fc.assert(
        fc.property(body, fc.boolean(), (b, stream) => {
          try {
            validateChatRequest(b);
          } catch {
            return;
          }
          try {
            const request = provider.buildRequest(b as ChatRequest, candidate, { stream });
            expect(typeof request.body).toBe('string');
            JSON.parse(request.body!);
            built++;
          } catch (error) {
            expectCodedRequestError(error);
          }
        }),
        { numRuns: 300, seed: 16 },
      );
      // The generator reaches the builder, not only the validator.
      expect(built).toBeGreaterThan(0);
    });
  }
});
