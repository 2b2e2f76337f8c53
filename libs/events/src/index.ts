export type { HapticError } from '#core';
