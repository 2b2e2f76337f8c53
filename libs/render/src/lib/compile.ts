import { LookupType, toValueSync, type Liquid, type Template, type Variable } from 'liquidjs';
import { createEngine } from './engine.js';
import { recordPlaces } from './places.js';
import { problemFrom, sortProblems } from './problems.js';
import type { OutputDirs } from './state.js';
import { contextProviders } from './registry.js';
import type { ContextProvider, RenderProblem, RenderSpec, Result } from './types.js';

/** Top-level names every template may use (DESIGN §5); providers add more. */
export const BUILTIN_NAMES = ['resources', 'controller', 'extra', 'previous'] as const;

/** Properties Liquid itself answers on any list. */
const LIST_PROPERTIES = new Set(['size', 'first', 'last']);

export type OutputKind = 'haproxy' | 'map' | 'file' | 'cert';

/** One parsed top-level template. */
export interface CompiledTemplate {
  readonly kind: OutputKind;
  /** The file name (for haproxy.cfg: `haproxy.cfg`). */
  readonly file: string;
  /** How problems name it: `haproxy.cfg`, `map:<name>`, `file:<name>`, `cert:<name>`. */
  readonly label: string;
  readonly escaped: boolean;
  readonly parsed: readonly Template[];
}

/** Every template of one config version, parsed once, with the engines that render them. */
export interface CompiledTemplates {
  readonly templates: readonly CompiledTemplate[];
  readonly escapedEngine: Liquid;
  readonly plainEngine: Liquid;
  readonly watchedNames: readonly string[];
  readonly allowedNames: readonly string[];
  readonly dirs: OutputDirs;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly configVersion: string;
  /** The registry's context providers (built-in and given at compile), in order. */
  readonly providers: readonly ContextProvider[];
}

export interface CompileOptions {
  /** Context providers added to the built-in ones (their names are checked like built-in names). */
  readonly providers?: readonly ContextProvider[];
  /** Names added by context providers given per render instead (checked like built-in names). */
  readonly providerNames?: readonly string[];
  /** Shown to templates as `controller.config_version`. */
  readonly configVersion?: string;
}

function sortedEntries<T>(record: Readonly<Record<string, T>>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function sources(
  spec: RenderSpec,
): { kind: OutputKind; file: string; label: string; text: string }[] {
  const list = [
    {
      kind: 'haproxy' as const,
      file: 'haproxy.cfg',
      label: 'haproxy.cfg',
      text: spec.haproxyConfig.template,
    },
  ];
  const add = (kind: OutputKind, prefix: string, record: RenderSpec['maps']): void => {
    for (const [file, t] of sortedEntries(record)) {
      list.push({ kind: kind as 'haproxy', file, label: `${prefix}:${file}`, text: t.template });
    }
  };
  add('map', 'map', spec.maps);
  add('file', 'file', spec.files);
  add('cert', 'cert', spec.sslCertificates);
  return list;
}

function parseSnippets(engine: Liquid, names: readonly string[], problems: RenderProblem[]): void {
  for (const name of names) {
    try {
      engine.parseFileSync(name, LookupType.Partials);
    } catch (err) {
      problems.push(problemFrom(err, name, 'syntax'));
    }
  }
}

function missingSnippets(
  templates: readonly Template[],
  snippets: ReadonlySet<string>,
  fallback: string,
  out: RenderProblem[],
): void {
  for (const t of templates) {
    const file = (t as { file?: unknown }).file;
    const tag = (t as { name?: unknown }).name;
    if (
      (tag === 'render' || tag === 'include') &&
      typeof file === 'string' &&
      !snippets.has(file)
    ) {
      const [line = 0, column = 0] = t.token.getPosition();
      const template = t.token.file ?? fallback;
      out.push({
        code: 'unknown-snippet',
        template,
        line,
        column,
        message: `snippet not found: ${file}`,
      });
    }
    if (t.children) missingSnippets(toValueSync(t.children(false, true)), snippets, fallback, out);
  }
}

function parsedSnippet(engine: Liquid, name: string): Template[] | undefined {
  try {
    return engine.parseFileSync(name, LookupType.Partials);
  } catch {
    return undefined; // reported by parseSnippets
  }
}

function nameProblem(v: Variable, message: string, fallback: string): RenderProblem {
  return {
    code: 'unknown-name',
    template: v.location.file ?? fallback,
    line: v.location.row,
    column: v.location.col,
    message,
  };
}

function checkNames(
  t: CompiledTemplate,
  engine: Liquid,
  allowed: ReadonlySet<string>,
  watched: readonly string[],
): RenderProblem[] {
  const problems: RenderProblem[] = [];
  let globals: Record<string, Variable[]>;
  try {
    globals = engine.analyzeSync([...t.parsed], { partials: true }).globals;
  } catch (err) {
    // A missing snippet (reported on its own) stops following partials; check this template alone.
    const p = problemFrom(err, t.label, 'syntax');
    if (p.code !== 'unknown-snippet') return [p];
    globals = engine.analyzeSync([...t.parsed], { partials: false }).globals;
  }
  for (const [root, uses] of Object.entries(globals)) {
    for (const v of uses) {
      if (!allowed.has(root)) {
        const known = [...allowed].join(', ');
        problems.push(nameProblem(v, `unknown name "${root}" (known: ${known})`, t.label));
        continue;
      }
      const second = v.segments[1];
      if (root === 'resources' && typeof second === 'string' && !watched.includes(second)) {
        if (LIST_PROPERTIES.has(second)) continue;
        const msg = `resources.${second} is not a watched resource (watched: ${watched.join(', ')})`;
        problems.push(nameProblem(v, msg, t.label));
      }
    }
  }
  return problems;
}

function parseTemplates(
  spec: RenderSpec,
  engines: { escapedEngine: Liquid; plainEngine: Liquid },
  problems: RenderProblem[],
): CompiledTemplate[] {
  const templates: CompiledTemplate[] = [];
  for (const s of sources(spec)) {
    const escaped = s.kind === 'haproxy' || s.kind === 'map';
    try {
      const parsed = (escaped ? engines.escapedEngine : engines.plainEngine).parse(s.text, s.label);
      templates.push({ kind: s.kind, file: s.file, label: s.label, escaped, parsed });
    } catch (err) {
      problems.push(problemFrom(err, s.label, 'syntax'));
    }
  }
  return templates;
}

/**
 * Compiles every template of a config once: parse errors, unknown filters and tags, missing
 * snippets and unknown top-level names are all reported here, before anything is rendered.
 */
export function compileTemplates(
  spec: RenderSpec,
  options: CompileOptions = {},
): Result<CompiledTemplates, RenderProblem[]> {
  const snippets = Object.fromEntries(
    sortedEntries(spec.templateSnippets).map(([n, t]) => [n, t.template]),
  );
  const escapedEngine = createEngine(snippets, true);
  const plainEngine = createEngine(snippets, false);
  const problems: RenderProblem[] = [];
  const names = Object.keys(snippets);
  parseSnippets(escapedEngine, names, problems);
  if (problems.length === 0) parseSnippets(plainEngine, names, problems);
  const templates = parseTemplates(spec, { escapedEngine, plainEngine }, problems);
  const watchedNames = Object.keys(spec.watchedResources).sort();
  const providers = contextProviders(options.providers);
  const allowedNames = [
    ...BUILTIN_NAMES,
    ...providers.map((p) => p.name),
    ...(options.providerNames ?? []),
  ];
  // Every template that parsed is checked further, so one load reports as much as it can.
  const known = new Set(names);
  for (const t of templates) missingSnippets(t.parsed, known, t.label, problems);
  for (const n of names) {
    const parsed = parsedSnippet(escapedEngine, n);
    if (parsed) missingSnippets(parsed, known, n, problems);
    // snippets are read as haproxy.cfg lines (a map template rarely renders one)
    if (parsed) recordPlaces(parsed);
  }
  for (const t of templates) if (t.escaped) recordPlaces(t.parsed, t.kind === 'map');
  const allowed = new Set(allowedNames);
  for (const t of templates) {
    const engine = t.escaped ? escapedEngine : plainEngine;
    problems.push(...checkNames(t, engine, allowed, watchedNames));
  }
  if (problems.length > 0) return { ok: false, error: sortProblems(problems) };
  return {
    ok: true,
    value: {
      templates,
      escapedEngine,
      plainEngine,
      watchedNames,
      allowedNames,
      dirs: {
        maps: spec.dataplane.mapsDir,
        ssl: spec.dataplane.sslCertsDir,
        general: spec.dataplane.generalStorageDir,
      },
      extra: spec.templatingSettings.extraContext,
      configVersion: options.configVersion ?? '',
      providers,
    },
  };
}
