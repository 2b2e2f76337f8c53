import type { Rule } from 'eslint';

/** The `haptic-tests` ESLint plugin (see test-focus.js). */
declare const plugin: { rules: { 'no-focused-or-untracked-skip': Rule.RuleModule } };
export default plugin;
