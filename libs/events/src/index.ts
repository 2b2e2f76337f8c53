import type { EventBus } from '#bus';
import type { HapticFacts, HapticStates } from './topics.js';

export * from './topics.js';
export * from './ports.js';
export * from './leadership.js';
export * from './tokens.js';
export * from './kube-ports.js';
export * from './admission.js';

/** The bus every haptic module shares, typed with the catalogue. */
export type HapticBus = EventBus<HapticFacts, HapticStates>;
