import type { ArgKind } from './word-meaning.js';

/**
 * One directive whose arguments haptic knows the kind of. `words` name it (`*` matches any word;
 * a word ending in `(` matches any word starting so, as `set-var-fmt(txn.x)`); `args` are the
 * kinds of the positional arguments after it; `options` the kinds of the words after a keyword
 * (`lf-string`, `hdr` …). A condition (`if`/`unless`) is read by the ACL rules (§7).
 */
export interface DirectiveArgs {
  readonly words: readonly string[];
  readonly args: readonly ArgKind[];
  readonly options?: Readonly<Record<string, readonly ArgKind[]>>;
  /** Where HAProxy's configuration manual (2.6 and 3.0) defines the arguments. */
  readonly manual: string;
}

const LF: ArgKind = 'log-format';
const W: ArgKind = 'word';
const RE: ArgKind = 'regex';
const SAMPLE: ArgKind = 'sample';

/** `return`'s and `deny`'s options (§4.2 "http-request return", 2.2+ `deny … hdr`). */
const RETURN_OPTIONS = {
  status: [W],
  deny_status: [W],
  'content-type': [W],
  'default-errorfiles': [],
  errorfile: [W],
  errorfiles: [W],
  file: [W],
  'lf-file': [W],
  string: [W],
  'lf-string': [LF],
  hdr: [W, LF],
} as const;

/** `redirect`'s options (§4.2 "redirect"): location, prefix and scheme are log-format. */
const REDIRECT_OPTIONS = {
  location: [LF],
  prefix: [LF],
  scheme: [LF],
  code: [W],
  'set-cookie': [W],
  'clear-cookie': [W],
} as const;

/** Actions shared by http-request, http-response and http-after-response (§4.3 actions). */
function httpActions(rule: string, section: string): DirectiveArgs[] {
  const at = (action: string, args: readonly ArgKind[], options?: DirectiveArgs['options']) => ({
    words: [rule, action],
    args,
    ...(options ? { options } : {}),
    manual: `${section} "${rule} ${action.replace(/\($/, '(…)')}"`,
  });
  return [
    at('set-header', [W, LF]),
    at('add-header', [W, LF]),
    at('early-hint', [W, LF]),
    at('replace-header', [W, RE, LF]),
    at('replace-value', [W, RE, LF]),
    at('del-header', [W]),
    at('set-path', [LF]),
    at('set-pathq', [LF]),
    at('set-uri', [LF]),
    at('set-query', [LF]),
    at('set-method', [LF]),
    at('replace-path', [RE, LF]),
    at('replace-pathq', [RE, LF]),
    at('replace-uri', [RE, LF]),
    at('set-status', [W], { reason: [W] }),
    at('set-var-fmt(', [LF]),
    at('set-var(', [SAMPLE]),
    at('set-map(', [LF, LF]),
    at('add-acl(', [LF]),
    at('del-acl(', [LF]),
    at('del-map(', [LF]),
    at('capture', [SAMPLE], { len: [W], id: [W] }),
    at('redirect', [], REDIRECT_OPTIONS),
    at('return', [], RETURN_OPTIONS),
    at('deny', [], RETURN_OPTIONS),
    at('tarpit', [], RETURN_OPTIONS),
    at('auth', [], { realm: [W] }),
  ];
}

/** tcp-request/tcp-response actions that take a log-format or a sample (§4.2 "tcp-request …"). */
function tcpActions(): DirectiveArgs[] {
  const out: DirectiveArgs[] = [];
  for (const [rule, phases] of [
    ['tcp-request', ['connection', 'session', 'content']],
    ['tcp-response', ['content']],
  ] as const) {
    for (const phase of phases) {
      const manual = `4.2 "${rule} ${phase}"`;
      out.push({ words: [rule, phase, 'set-var-fmt('], args: [LF], manual });
      out.push({ words: [rule, phase, 'set-var('], args: [SAMPLE], manual });
    }
  }
  return out;
}

/**
 * The one table of directive → argument kinds, from HAProxy's configuration manual (section
 * numbers of 2.6 and 3.0; the same in both). What is not in it has no known kind: an untrusted
 * `%` or `$` there is refused rather than guessed.
 */
export const DIRECTIVE_ARGS: readonly DirectiveArgs[] = [
  ...httpActions('http-request', '4.3'),
  ...httpActions('http-response', '4.3'),
  ...httpActions('http-after-response', '4.3'),
  ...tcpActions(),
  { words: ['log-format'], args: [LF], manual: '4.2 "log-format", 8.2.6 "Custom log format"' },
  { words: ['log-format-sd'], args: [LF], manual: '4.2 "log-format-sd"' },
  { words: ['error-log-format'], args: [LF], manual: '4.2 "error-log-format"' },
  { words: ['unique-id-format'], args: [LF], manual: '4.2 "unique-id-format"' },
  { words: ['unique-id-header'], args: [W], manual: '4.2 "unique-id-header"' },
  { words: ['use_backend'], args: [LF], manual: '4.2 "use_backend" (a log-format name)' },
  { words: ['default_backend'], args: [W], manual: '4.2 "default_backend"' },
  { words: ['use-server'], args: [W], manual: '4.2 "use-server"' },
  { words: ['server'], args: [W, W], manual: '5.2 "server"' },
  { words: ['errorfile'], args: [W, W], manual: '4.2 "errorfile"' },
  { words: ['stick', 'on'], args: [SAMPLE], manual: '4.2 "stick on"' },
  {
    words: ['http-check', 'send'],
    args: [],
    options: {
      meth: [W],
      uri: [W],
      'uri-lf': [LF],
      ver: [W],
      hdr: [W, LF],
      body: [W],
      'body-lf': [LF],
    },
    manual: '4.2 "http-check send"',
  },
];

/** Whether directive word `pattern` matches the word `word` (undefined: not known). */
function wordMatches(pattern: string, word: string | undefined): boolean | undefined {
  if (pattern === '*') return true;
  if (word === undefined) return undefined;
  return pattern.endsWith('(') ? word.startsWith(pattern) : word === pattern;
}

/** The kind of the argument after `rest` (the words after the directive's own), by its entry. */
function kindAfter(
  entry: DirectiveArgs,
  rest: readonly (string | undefined)[],
): ArgKind | undefined {
  let positional = 0;
  let pending: readonly ArgKind[] = [];
  for (const w of rest) {
    if (pending.length > 0) {
      pending = pending.slice(1);
      continue;
    }
    const option = w === undefined ? undefined : entry.options?.[w];
    if (option) pending = option;
    else if (w === undefined && entry.options)
      return undefined; // an unknown word: an option?
    else positional++;
  }
  if (pending.length > 0) return pending[0];
  return entry.args[positional];
}

/** The kind of a word inside an ACL (after `acl <name>` or in `{ … }`): fetch, then patterns. */
function aclKind(words: readonly (string | undefined)[]): ArgKind | undefined {
  if (words.length === 0) return 'sample';
  const fetch = words[0];
  // a fetch the template fills in (`req.fhdr({{ name }})`) still has a known match method when
  // `-m` names it: then the method alone decides the patterns' kind
  let regex: boolean | undefined =
    fetch === undefined ? undefined : /_(reg|rex)$/.test(fetch.replace(/\(.*$/, ''));
  let expectFlagArg = false;
  let method = false;
  for (const w of words.slice(1)) {
    if (w === undefined) return undefined;
    if (expectFlagArg) {
      if (method) regex = w === 'reg';
      expectFlagArg = false;
    } else if (w === '-m' || w === '-f' || w === '-M' || w === '-u') {
      expectFlagArg = true;
      method = w === '-m';
    }
  }
  if (expectFlagArg) return 'word';
  if (regex === undefined) return undefined;
  return regex ? 'regex' : 'acl-pattern';
}

/** The kind of a word in a condition (the words after `if`/`unless`), or in an `acl` line. */
function conditionKind(words: readonly (string | undefined)[]): ArgKind | undefined {
  const open = words.map((w) => w !== undefined && /^!?\{$/.test(w)).lastIndexOf(true);
  const close = words.lastIndexOf('}');
  if (open !== -1 && open > close) return aclKind(words.slice(open + 1));
  return 'word'; // an ACL name or an operator (`||`, `!`)
}

/**
 * The kind of the argument that follows `words` on a haproxy.cfg line (each undefined when the
 * template does not fix it), by the one table: undefined when the table does not say, or when
 * the entries the words may match do not agree.
 */
export function argumentKind(words: readonly (string | undefined)[]): ArgKind | undefined {
  const cond = words.findIndex((w) => w === 'if' || w === 'unless');
  if (cond !== -1) return conditionKind(words.slice(cond + 1));
  if (words.some((w) => w !== undefined && /^!?\{$/.test(w))) return conditionKind(words);
  if (words[0] === 'acl') return words.length < 2 ? 'word' : aclKind(words.slice(2));
  const kinds = new Set<ArgKind | undefined>();
  for (const entry of DIRECTIVE_ARGS) {
    if (entry.words.length > words.length) continue;
    const matches = entry.words.map((p, i) => wordMatches(p, words[i]));
    // an entry counts when no word contradicts it and, if some are not known, one names it
    if (matches.includes(false)) continue;
    if (matches.includes(undefined) && !entry.words.some((p, i) => p !== '*' && matches[i]))
      continue;
    kinds.add(kindAfter(entry, words.slice(entry.words.length)));
  }
  return kinds.size === 1 ? [...kinds][0] : undefined;
}
