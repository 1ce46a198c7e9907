/** The end of an async iterator, one frozen object for every iterator of the core (no result object per end). */
export const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
