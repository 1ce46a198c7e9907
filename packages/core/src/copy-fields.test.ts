import { describe, expect, it } from 'vitest';
import { addFields, withField } from './copy-fields.js';

describe('copy-fields', () => {
  it('addFields copies own fields only, in order, and skips a missing source', () => {
    const inherited = Object.create({ polluted: 'yes' }) as Record<string, unknown>;
    inherited.own = 1;
    const target = addFields(addFields({ first: 0 } as Record<string, unknown>, inherited), undefined);
    expect(target).toEqual({ first: 0, own: 1 });
    expect(Object.keys(target)).toEqual(['first', 'own']);
    expect(addFields({ a: 'x' }, { a: 'y', b: 'z' })).toEqual({ a: 'y', b: 'z' });
  });

  it('withField is a spread with one field set: symbols kept, the field replaced in place or appended', () => {
    const tag = Symbol('tag');
    const source = { a: 1, b: 2, [tag]: 'kept' };
    const copy = withField(source, 'a', 9);
    expect(copy).toEqual({ a: 9, b: 2, [tag]: 'kept' });
    expect(Object.keys(copy)).toEqual(['a', 'b']);
    expect(Object.keys(withField(source, 'c', 3))).toEqual(['a', 'b', 'c']);
    expect(source.a).toBe(1);
  });
});
