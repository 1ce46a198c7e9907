/** The brand that tells a pipeline from any other object (across copies of this package). */
export const PIPELINE_MARKER: unique symbol = Symbol.for('switchyard.pipeline') as never;

export function isPipeline(value: unknown): value is import('./contract.js').Pipeline {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[PIPELINE_MARKER] === true;
}
