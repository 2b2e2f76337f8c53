import { SECTION_KEYWORDS, splitWords } from './config-lines.js';

/** One directive: its words as HAProxy reads them (quotes removed, comments dropped). */
export type Directive = readonly string[];

/** One section: keyword, name (may be empty, as for `global`) and its directives in order. */
export interface ConfigSectionModel {
  readonly type: string;
  readonly name: string;
  readonly directives: readonly Directive[];
}

/**
 * A parsed haproxy.cfg: sections in file order, each with its directives in order (order matters
 * for rules, ACL evaluation and `use_backend`; it is kept everywhere). Comments, blank lines and
 * indentation are not part of the model.
 */
export interface HaproxyConfigModel {
  readonly sections: readonly ConfigSectionModel[];
}

/** Parses a configuration into the model (the `# _version=` header is a comment: dropped). */
export function parseConfig(text: string): HaproxyConfigModel {
  const sections: { type: string; name: string; directives: Directive[] }[] = [];
  let current: (typeof sections)[number] | undefined;
  for (const raw of text.split('\n')) {
    const words = splitWords(raw.replace(/\r$/, ''));
    const first = words[0];
    if (first === undefined) continue;
    if (SECTION_KEYWORDS.has(first)) {
      current = { type: first, name: words.slice(1).join(' '), directives: [] };
      sections.push(current);
      continue;
    }
    if (!current) {
      current = { type: '', name: '', directives: [] };
      sections.push(current);
    }
    current.directives.push(words);
  }
  return { sections };
}

/** Quotes a word so that `splitWords` reads it back unchanged. */
export function quoteWord(word: string): string {
  if (word !== '' && !/[\s"'\\#$]/.test(word)) return word;
  // Environment references are expanded only inside double quotes: keep them there.
  if (!word.includes("'") && !word.includes('$')) return `'${word}'`;
  return `"${word.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** Prints the model: one header per section, directives indented by two spaces. */
export function printConfig(model: HaproxyConfigModel): string {
  const out: string[] = [];
  for (const s of model.sections) {
    if (s.type !== '') out.push([s.type, ...(s.name === '' ? [] : [s.name])].join(' '));
    for (const d of s.directives) out.push(`  ${d.map(quoteWord).join(' ')}`);
  }
  return `${out.join('\n')}\n`;
}

/** The section of a type and name, if present. */
export function findSection(
  model: HaproxyConfigModel,
  type: string,
  name: string,
): ConfigSectionModel | undefined {
  return model.sections.find((s) => s.type === type && s.name === name);
}
