import { RuleTester } from 'eslint';
import { describe, it } from 'vitest';
import hapticTests from '../../scripts/eslint/test-focus.js';

// The lint rule that keeps committed tests running in full, proven to bite on examples.
RuleTester.describe = describe;
RuleTester.it = it;

const rule = hapticTests.rules['no-focused-or-untracked-skip'];

new RuleTester().run('haptic-tests/no-focused-or-untracked-skip', rule, {
  valid: [
    "describe('a', () => { it('b', () => {}); });",
    "it.each([1])('x %s', () => {});",
    'opts.only = true; list.skip(2);',
    "// skip-reason: waits for the agent's TLS reloads (#21)\nit.skip('later', () => {});",
    "// skip-reason: narrowed on purpose by HAPTIC_HAPROXY_MAJORS\ndescribe.skip('2.6', () => {});",
  ],
  invalid: [
    { code: "it.only('x', () => {});", errors: [{ messageId: 'only' }] },
    { code: "describe.only('x', () => {});", errors: [{ messageId: 'only' }] },
    { code: "it.only.each([1])('x', () => {});", errors: [{ messageId: 'only' }] },
    { code: "describe.concurrent.only('x', () => {});", errors: [{ messageId: 'only' }] },
    { code: "test.skip('x', () => {});", errors: [{ messageId: 'skip' }] },
    { code: "it.skipIf(true)('x', () => {});", errors: [{ messageId: 'skip' }] },
    { code: "it.todo('x');", errors: [{ messageId: 'skip' }] },
    { code: "// flaky\nit.skip('x', () => {});", errors: [{ messageId: 'skip' }] },
    {
      code: "// skip-reason: #3\n\nit.skip('a comment two lines up does not count', () => {});",
      errors: [{ messageId: 'skip' }],
    },
  ],
});
