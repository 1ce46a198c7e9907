/** The brand that tells a plugin from any other object (across copies of this package). */
export const PLUGIN_MARKER: unique symbol = Symbol.for('switchyard.plugin') as never;
