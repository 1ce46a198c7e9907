import { describe, expect, it } from 'vitest';
import { applyPartialArg, parseJsonPath } from './partial-args.js';

describe('parseJsonPath', () => {
  it.each([
    ['$.location', ['location']],
    ['$.items[0].name', ['items', 0, 'name']],
    ['$["odd key"][2]', ['odd key', 2]],
    ["$['q\\'s']", ["q's"]],
  ])('%s', (path, keys) => {
    expect(parseJsonPath(path)).toEqual(keys);
  });

  it.each(['location', '$', '$..deep', '$.a[x]'])('refuses %s', (path) => {
    expect(parseJsonPath(path)).toBeUndefined();
  });
});

describe('applyPartialArg', () => {
  it('concatenates string fragments and builds nested objects and arrays', () => {
    const args: Record<string, unknown> = {};
    applyPartialArg(args, { jsonPath: '$.city', stringValue: 'San', willContinue: true });
    applyPartialArg(args, { jsonPath: '$.city', stringValue: ' Francisco', willContinue: true });
    applyPartialArg(args, { jsonPath: '$.city', stringValue: '' });
    applyPartialArg(args, { jsonPath: '$.days[0].n', numberValue: 3 });
    applyPartialArg(args, { jsonPath: '$.days[1].n', numberValue: 4 });
    applyPartialArg(args, { jsonPath: '$.metric', boolValue: false });
    applyPartialArg(args, { jsonPath: '$.note', nullValue: null });
    expect(args).toEqual({ city: 'San Francisco', days: [{ n: 3 }, { n: 4 }], metric: false, note: null });
  });

  it('ignores fragments without a value or with a path it cannot follow, and never touches prototypes', () => {
    const args: Record<string, unknown> = {};
    applyPartialArg(args, { jsonPath: '$.a' });
    applyPartialArg(args, { jsonPath: 'nope', stringValue: 'x' });
    applyPartialArg(args, { jsonPath: '$.__proto__.polluted', stringValue: 'yes' });
    expect(args).toEqual({});
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
