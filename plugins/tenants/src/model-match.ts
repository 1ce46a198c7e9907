/** A key's allowed models: logical model names or globs (`*` is any run of characters, nothing else is special). */
export type ModelMatcher = (model: string) => boolean;

const everyModel: ModelMatcher = () => true;

export function modelMatcher(patterns: readonly string[] | undefined): ModelMatcher {
  if (!patterns) return everyModel;
  const exact = new Set(patterns.filter((p) => !p.includes('*')));
  const globs = patterns.filter((p) => p.includes('*')).map((p) => new RegExp(`^${p.split('*').map(escape).join('.*')}$`, 's'));
  return (model) => exact.has(model) || globs.some((g) => g.test(model));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
