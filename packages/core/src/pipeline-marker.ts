/** The brand that tells a pipeline from any other object (across copies of this package). */
export const PIPELINE_MARKER: unique symbol = Symbol.for('switchyard.pipeline') as never;
