import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CliArgumentError } from '../haproxy-config.errors.js';
import { chunkPayload, cliCommand, escapeCliArg } from './cli-command.js';

/**
 * A model of HAProxy's CLI reader (src/cli.c): a message is cut at the first newline, commands
 * are split at unescaped `;`, words at unescaped spaces/tabs, then `\x` becomes `x`.
 */
function haproxyParse(message: string): string[][] {
  const line = message.split('\n', 1)[0] ?? '';
  const commands: string[] = [];
  let cur = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\') {
      cur += c + (line[i + 1] ?? '');
      i++;
    } else if (c === ';') {
      commands.push(cur);
      cur = '';
    } else cur += c;
  }
  commands.push(cur);
  return commands.map((cmd) => {
    const words: string[] = [];
    let word: string | undefined;
    for (let i = 0; i < cmd.length; i++) {
      const c = cmd[i]!;
      if (c === '\\') {
        word = (word ?? '') + (cmd[i + 1] ?? '');
        i++;
      } else if (c === ' ' || c === '\t') {
        if (word !== undefined) words.push(word);
        word = undefined;
      } else word = (word ?? '') + c;
    }
    if (word !== undefined) words.push(word);
    return words;
  });
}

const safeChar = fc.constantFrom(
  'a',
  'Z',
  '0',
  ' ',
  '\t',
  ';',
  '\\',
  '"',
  "'",
  '#',
  '<',
  '%',
  'é',
  '/',
);
const safeString = fc
  .string({
    unit: fc.oneof(safeChar, fc.string({ minLength: 1, maxLength: 1 })),
    minLength: 1,
    maxLength: 40,
  })
  .filter((s) => !/[\r\n\0]/.test(s));

describe('escapeCliArg', () => {
  it('round-trips any value as exactly one word of one command', () => {
    fc.assert(
      fc.property(fc.array(safeString, { minLength: 1, maxLength: 5 }), (words) => {
        const parsed = haproxyParse(cliCommand('set', 'map', ...words));
        expect(parsed).toEqual([['set', 'map', ...words]]);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every value carrying a newline, carriage return or NUL', () => {
    const withBreak = fc
      .tuple(fc.string(), fc.constantFrom('\n', '\r', '\0', '\r\n'), fc.string())
      .map(([a, b, c]) => a + b + c);
    fc.assert(
      fc.property(withBreak, (value) => {
        expect(() => escapeCliArg(value)).toThrow(CliArgumentError);
      }),
    );
  });

  it('escapes the separators HAProxy would otherwise act on', () => {
    expect(escapeCliArg('a b;c\\d')).toBe('a\\ b\\;c\\\\d');
    expect(() => escapeCliArg('')).toThrow(CliArgumentError);
    expect(() => cliCommand('x'.repeat(20_000))).toThrow(/longer than/);
  });
});

describe('chunkPayload', () => {
  it('keeps every message under the limit and loses no line', () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9.]{1,60} [a-z0-9_]{1,40}$/), { maxLength: 400 }),
        fc.integer({ min: 200, max: 2000 }),
        (lines, limit) => {
          const msgs = chunkPayload('add map maps/h.map', lines, limit);
          const back: string[] = [];
          for (const m of msgs) {
            expect(Buffer.byteLength(m)).toBeLessThanOrEqual(limit);
            expect(m.endsWith('\n\n')).toBe(true);
            const [head, ...rest] = m.split('\n');
            expect(head).toBe('add map maps/h.map <<');
            back.push(...rest.filter((l) => l !== ''));
          }
          expect(back).toEqual(lines);
        },
      ),
    );
  });

  it('refuses empty payload lines (they would end the payload early)', () => {
    expect(() => chunkPayload('add map m', ['a b', ''])).toThrow(/empty/);
  });
});
