import type { CheckTree } from './check-tree.js';
import type { ValidationProblem } from './problems.js';

/** Checker lines that only summarise or describe the binary; never shown. */
const NOISE = [
  /Error\(s\) found in configuration file/i,
  /Fatal errors found in configuration/i,
  /Configuration file has errors/i,
  /haproxy version is/i,
  /path to executable is/i,
  /Configuration file is valid/i,
];

/** Strips `[ALERT]    (1234) : config : ` style prefixes (2.6 and 3.x). */
function stripPrefix(line: string): { level: string; text: string } | undefined {
  const m = /^\[(ALERT|WARNING|NOTICE)\]\s*(?:\(\d+\)\s*)?:\s*(?:config\s*:\s*)?(.*)$/.exec(
    line.trim(),
  );
  if (!m) return undefined;
  return { level: m[1] ?? '', text: (m[2] ?? '').trim() };
}

/**
 * Reduces raw `haproxy -c` output to problems: alerts only, prefixes and PIDs removed, tree paths
 * turned back into HAProxy-side paths, `parsing [file:line]` turned into an output and a line.
 */
export function reduceCheckerOutput(raw: string, tree: CheckTree): ValidationProblem[] {
  return dedupe(
    joinContinuations(raw)
      .filter((p) => p.level === 'ALERT' && !NOISE.some((re) => re.test(p.text)))
      .map((p) => locate(p.text, tree)),
  );
}

/** One entry per message: HAProxy 3.x continues a message on indented lines. */
function joinContinuations(raw: string): { level: string; text: string }[] {
  const out: { level: string; text: string }[] = [];
  for (const line of raw.split('\n')) {
    const p = stripPrefix(line);
    const last = out[out.length - 1];
    if (p) out.push(p);
    else if (last && /^\s+\S/.test(line)) last.text = `${last.text} ${line.trim()}`;
  }
  return out;
}

function locate(text: string, tree: CheckTree): ValidationProblem {
  // `parsing [<file>:<line>] : <reason>` and `config : [<file>:<line>] : <reason>` forms.
  const m = /\[([^\]:]+):(\d+)\]\s*:?\s*(.*)$/.exec(text);
  if (m?.[1] && m[2]) {
    const output = tree.outputOf(m[1]) ?? tree.toLogical(m[1]);
    const rest = m[3] ?? '';
    return {
      stage: 'haproxy',
      output,
      line: Number(m[2]),
      reason: tidy(tree.toLogical(rest.length > 0 ? rest : text)),
    };
  }
  return { stage: 'haproxy', output: 'haproxy.cfg', reason: tidy(tree.toLogical(text)) };
}

/** Collapses whitespace and trims the reason to one readable line. */
function tidy(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > 300 ? `${t.slice(0, 297)}...` : t;
}

function dedupe(list: ValidationProblem[]): ValidationProblem[] {
  const seen = new Set<string>();
  return list.filter((p) => {
    const k = `${p.output}:${p.line ?? ''}:${p.reason}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
