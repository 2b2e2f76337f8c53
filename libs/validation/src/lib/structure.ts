import { configLines, type ConfigLine } from '#haproxy-config';
import { findRefusedDirectives } from './directives.js';
import { vettedLuaLines } from './vetted-lua.js';
import { listOutputs, type RenderedOutputs } from './outputs.js';
import {
  SAFE_OUTPUT_NAME,
  climbs,
  crtListReferences,
  findFileReferences,
  resolveStoragePath,
  type FileReference,
  type StorageDirs,
} from './paths.js';
import type { ValidationProblem } from './problems.js';

/** Policy the structural checks apply. */
export interface StructureOptions {
  readonly dirs: StorageDirs;
  /** Refusal ids the operator permits (spec.validation.allowedDirectives). */
  readonly allowedDirectives?: readonly string[];
}

/** Id that permits reading files outside the storage dirs (absolute or climbing paths). */
export const EXTERNAL_FILE = 'external-file';

// Control characters other than tab and newline: a rendered line must never be split or hidden.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

function controlCharProblems(target: string, text: string): ValidationProblem[] {
  const out: ValidationProblem[] = [];
  text.split('\n').forEach((l, i) => {
    const m = CONTROL.exec(l);
    if (m) {
      const code = m[0].charCodeAt(0).toString(16).padStart(2, '0');
      out.push({
        stage: 'structure',
        output: target,
        line: i + 1,
        reason: `control character \\x${code}`,
      });
    }
  });
  return out;
}

function nameProblems(outputs: RenderedOutputs): ValidationProblem[] {
  return listOutputs(outputs)
    .filter(([t]) => t !== 'haproxy.cfg' && !SAFE_OUTPUT_NAME.test(t.slice(t.indexOf(':') + 1)))
    .map(([t]) => ({
      stage: 'structure' as const,
      output: t,
      reason: 'unsafe file name (letters, digits, . _ - only; no folders)',
    }));
}

function pemProblems(target: string, text: string): ValidationProblem[] {
  const begins = text.match(/^-----BEGIN [A-Z0-9 ]+-----$/gm) ?? [];
  const ends = text.match(/^-----END [A-Z0-9 ]+-----$/gm) ?? [];
  if (begins.length === 0)
    return [{ stage: 'structure', output: target, reason: 'holds no PEM block' }];
  if (begins.length !== ends.length) {
    return [{ stage: 'structure', output: target, reason: 'has unbalanced PEM BEGIN/END lines' }];
  }
  return [];
}

function sectionProblems(lines: readonly ConfigLine[]): ValidationProblem[] {
  const firstLine = lines[0];
  if (!firstLine) return [{ stage: 'structure', output: 'haproxy.cfg', reason: 'is empty' }];
  if (firstLine.section === '' && !(firstLine.words[0] ?? '').startsWith('.')) {
    return [
      {
        stage: 'structure',
        output: 'haproxy.cfg',
        line: firstLine.line,
        reason: `'${firstLine.words[0] ?? ''}' appears before any section`,
      },
    ];
  }
  return [];
}

function referenceProblems(
  output: string,
  refs: readonly FileReference[],
  opts: StructureOptions,
  outputs: RenderedOutputs,
): ValidationProblem[] {
  const allowExternal = (opts.allowedDirectives ?? []).includes(EXTERNAL_FILE);
  const out: ValidationProblem[] = [];
  for (const r of refs) {
    const hit = resolveStoragePath(r.path, opts.dirs, outputs);
    if (hit?.kind === 'missing') {
      out.push({
        stage: 'structure',
        output,
        line: r.line,
        reason: `${r.keyword} refers to ${r.path}, which this render does not produce`,
      });
    } else if (!hit && (r.path.startsWith('/') || climbs(r.path)) && !allowExternal) {
      out.push({
        stage: 'refused',
        output,
        line: r.line,
        directive: EXTERNAL_FILE,
        reason: `${r.keyword} reads ${r.path}, outside the storage directories (allow with spec.validation.allowedDirectives: [${EXTERNAL_FILE}])`,
      });
    }
  }
  return out;
}

/**
 * Our own checks of a render, before any process runs: safe names, no control characters,
 * sections, PEM shape, references to files the render produces, and the refused-directive policy.
 */
export function checkStructure(
  outputs: RenderedOutputs,
  opts: StructureOptions,
): ValidationProblem[] {
  const lines = configLines(outputs.haproxyConfig);
  const problems: ValidationProblem[] = [
    ...nameProblems(outputs),
    ...controlCharProblems('haproxy.cfg', outputs.haproxyConfig),
    ...sectionProblems(lines),
  ];
  // the vetted Lua a library ships (ADR 0013) is not refused; any other Lua still is
  const vetted = vettedLuaLines(lines, opts.dirs, outputs);
  const policed = lines.filter((l) => !vetted.has(l));
  for (const r of findRefusedDirectives(policed, opts.allowedDirectives)) {
    problems.push({
      stage: 'refused',
      output: 'haproxy.cfg',
      line: r.line,
      directive: r.id,
      reason: `'${r.text}' is refused: it ${r.why} (allow with spec.validation.allowedDirectives: [${r.id}])`,
    });
  }
  problems.push(...referenceProblems('haproxy.cfg', findFileReferences(lines), opts, outputs));
  for (const [name, text] of Object.entries(outputs.maps))
    problems.push(...controlCharProblems(`map:${name}`, text));
  for (const [name, text] of Object.entries(outputs.crtLists)) {
    problems.push(...controlCharProblems(`crt-list:${name}`, text));
    problems.push(...referenceProblems(`crt-list:${name}`, crtListReferences(text), opts, outputs));
  }
  for (const [name, text] of Object.entries(outputs.sslCertificates))
    problems.push(...pemProblems(`cert:${name}`, text));
  return problems;
}
