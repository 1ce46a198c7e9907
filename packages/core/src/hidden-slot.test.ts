import { describe, expect, it } from 'vitest';
import { hiddenSlot } from './hidden-slot.js';

describe('hiddenSlot', () => {
  it('finds the value by the object it was set on, and on no copy of it', () => {
    const slot = hiddenSlot<string>('test.slot');
    const part = { type: 'text-delta', text: 'hi' };
    slot.set(part, 'data: {"x":1}\n\n');
    expect(slot.get(part)).toBe('data: {"x":1}\n\n');
    // A plugin's changed copy is a new object: it must be encoded again, never sent as the vendor's text.
    expect(slot.get({ ...part, text: 'changed' })).toBeUndefined();
    expect(slot.get(Object.assign({}, part))).toBeUndefined();
    expect(slot.get(structuredClone(part))).toBeUndefined();
    expect(JSON.parse(JSON.stringify(part))).toEqual({ type: 'text-delta', text: 'hi' });
    expect(Object.keys(part)).toEqual(['type', 'text']);
    // Not even a symbol key: what a proxy or a deep-equal sees is the object's own shape.
    expect(Reflect.ownKeys(part)).toEqual(['type', 'text']);
    expect(part).toEqual({ type: 'text-delta', text: 'hi' });
  });

  it('takes a new value for the same object, and keeps slots of different names apart', () => {
    const a = hiddenSlot<number>('test.a');
    const b = hiddenSlot<number>('test.a');
    const target = {};
    a.set(target, 1);
    a.set(target, 2);
    expect(a.get(target)).toBe(2);
    expect(b.get(target)).toBeUndefined();
  });

  it('finds nothing on what is not an object, without throwing', () => {
    const slot = hiddenSlot<string>('test.primitive');
    for (const value of ['text', 42, undefined, null, true]) expect(slot.get(value as unknown as object)).toBeUndefined();
  });

  it('works on an object that cannot take a property (frozen), by its identity still', () => {
    const slot = hiddenSlot<string>('test.frozen');
    const frozen = Object.freeze({ type: 'finish' });
    slot.set(frozen, 'kept');
    expect(slot.get(frozen)).toBe('kept');
    expect(slot.get({ ...frozen })).toBeUndefined();
    expect(slot.get(Object.freeze({ type: 'finish' }))).toBeUndefined();
  });
});
