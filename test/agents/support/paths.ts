/**
 * The paths of the agent conformance suite, named by what the scripted vendors do (support/rig.ts
 * builds each): pass-through; failover before the first byte to a vendor of another API; a stream
 * cut mid-answer with a second deployment of the same API to continue on, or with none.
 */
export const PATHS = ['pass-through', 'failover', 'cut, continued', 'cut, not continued'] as const;
export type PathName = (typeof PATHS)[number];
