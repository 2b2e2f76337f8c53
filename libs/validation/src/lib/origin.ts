import type { SourceLocation, SourceMaps } from './outputs.js';
import type { ValidationProblem } from './problems.js';

/** Template texts by name, to infer origins when the renderer gave no source map. */
export type TemplateTexts = Readonly<Record<string, string>>;

/** Literal pieces of a template line: everything outside `{{ }}` and `{% %}`, trimmed. */
function literalPieces(line: string): string[] {
  return line
    .split(/\{\{-?[\s\S]*?-?\}\}|\{%-?[\s\S]*?-?%\}/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** True when every piece occurs in `text`, in order. */
function inOrder(pieces: readonly string[], text: string): boolean {
  let from = 0;
  for (const p of pieces) {
    const at = text.indexOf(p, from);
    if (at < 0) return false;
    from = at + p.length;
  }
  return true;
}

/**
 * The template line that most probably produced `outputLine`: the line whose literal text all
 * occurs in it, with the most literal text; undefined when none or when the best is a tie.
 */
export function inferOrigin(
  outputLine: string,
  templates: TemplateTexts,
): SourceLocation | undefined {
  const text = outputLine.trim();
  if (text.length === 0) return undefined;
  let best: { loc: SourceLocation; score: number } | undefined;
  let tie = false;
  for (const name of Object.keys(templates).sort()) {
    (templates[name] ?? '').split('\n').forEach((line, i) => {
      const pieces = literalPieces(line);
      const score = pieces.reduce((n, p) => n + p.length, 0);
      if (score < 3 || !inOrder(pieces, text)) return;
      if (!best || score > best.score) {
        best = { loc: { template: name, line: i + 1 }, score };
        tie = false;
      } else if (score === best.score) tie = true;
    });
  }
  return best && !tie ? best.loc : undefined;
}

/**
 * Attaches the template origin to problems that name an output line: from the renderer's source
 * map when it has one, else inferred from the template texts (marked approximate).
 */
export function traceOrigins(
  problems: readonly ValidationProblem[],
  outputText: (target: string) => string | undefined,
  maps: SourceMaps = {},
  templates: TemplateTexts = {},
): ValidationProblem[] {
  return problems.map((p) => {
    if (p.line === undefined || p.origin) return p;
    const mapped = maps[p.output]?.lines[p.line - 1];
    if (mapped) return { ...p, origin: mapped };
    const line = outputText(p.output)?.split('\n')[p.line - 1];
    const guess = line === undefined ? undefined : inferOrigin(line, templates);
    return guess ? { ...p, origin: guess, originApproximate: true } : p;
  });
}
