import { describe, expect, it } from 'vitest';
import { toGeminiParameters, toGeminiSchema } from './schema.js';

describe('toGeminiSchema', () => {
  it('drops keywords Gemini rejects, recursively', () => {
    expect(
      toGeminiSchema({
        $schema: 'http://json-schema.org/draft-07/schema#',
        $id: 'x',
        type: 'object',
        additionalProperties: false,
        properties: { list: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string' }, properties: { n: { type: 'integer', exclusiveMinimum: 0, minimum: 1 } } } } },
      }),
    ).toEqual({ type: 'object', properties: { list: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', minimum: 1 } } } } } });
  });

  it('rewrites nullable unions, const and oneOf', () => {
    expect(toGeminiSchema({ type: ['integer', 'null'] })).toEqual({ type: 'integer', nullable: true });
    expect(toGeminiSchema({ anyOf: [{ type: 'string', description: 'inner' }, { type: 'null' }], description: 'outer' })).toEqual({ type: 'string', description: 'outer', nullable: true });
    expect(toGeminiSchema({ type: 'string', const: 'fixed' })).toEqual({ type: 'string', enum: ['fixed'] });
    expect(toGeminiSchema({ oneOf: [{ type: 'string' }, { type: 'number' }] })).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
    expect(toGeminiSchema({ type: ['string', 'number'] })).toEqual({ anyOf: [{ type: 'string' }, { type: 'number' }] });
  });

  it('keeps only the formats Gemini knows', () => {
    expect(toGeminiSchema({ type: 'string', format: 'email' })).toEqual({ type: 'string' });
    expect(toGeminiSchema({ type: 'string', format: 'date-time' })).toEqual({ type: 'string', format: 'date-time' });
  });

  it('inlines local $refs and stops at recursion', () => {
    const schema = {
      type: 'object',
      $defs: { node: { type: 'object', properties: { label: { type: 'string' }, child: { $ref: '#/$defs/node' } } } },
      properties: { root: { $ref: '#/$defs/node', description: 'the root' } },
    };
    expect(toGeminiSchema(schema)).toEqual({
      type: 'object',
      properties: { root: { type: 'object', description: 'the root', properties: { label: { type: 'string' }, child: { type: 'object' } } } },
    });
    expect(toGeminiSchema({ $ref: 'https://example.com/remote.json' })).toEqual({ type: 'object' });
  });

  it('keeps required only for declared properties', () => {
    expect(toGeminiSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'b'] })).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
  });
});

describe('toGeminiParameters', () => {
  it('leaves out an object schema without properties (Gemini rejects an empty OBJECT)', () => {
    expect(toGeminiParameters({ type: 'object', properties: {}, additionalProperties: false })).toBeUndefined();
    expect(toGeminiParameters(undefined)).toBeUndefined();
    expect(toGeminiParameters({ type: 'object', properties: { q: { type: 'string' } } })).toEqual({ type: 'object', properties: { q: { type: 'string' } } });
  });
});
