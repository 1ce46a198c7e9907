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

  it('refuses a $defs chain that would grow exponentially once inlined, with a coded bad-request', () => {
    const defs: Record<string, unknown> = { d30: { type: 'string' } };
    for (let i = 0; i < 30; i++) defs[`d${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } };
    let caught: unknown;
    try {
      toGeminiSchema({ type: 'object', $defs: defs, properties: { x: { $ref: '#/$defs/d0' } } });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ kind: 'bad-request', code: 'SWITCHYARD_ERR_BAD_REQUEST', path: 'tools', retryable: false });
    // The same chain at a depth that stays small is inlined as before.
    const small: Record<string, unknown> = { d3: { type: 'string' } };
    for (let i = 0; i < 3; i++) small[`d${i}`] = { type: 'object', properties: { a: { $ref: `#/$defs/d${i + 1}` }, b: { $ref: `#/$defs/d${i + 1}` } } };
    expect(JSON.stringify(toGeminiSchema({ $defs: small, $ref: '#/$defs/d0' })).match(/"string"/g)).toHaveLength(8);
  });

  it('refuses a schema nested deeper than the limit', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 100; i++) deep = { type: 'object', properties: { p: deep } };
    expect(() => toGeminiSchema(deep)).toThrow(/deeper than 64/);
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
