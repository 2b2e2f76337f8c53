import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** One command line shown in a shell block of the documentation. */
export interface DocCommand {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line of the command in that page. */
  line: number;
  /** The command as a reader would type it: comment, `$ ` prompt and continuation lines folded. */
  text: string;
}

const SHELL_FENCE = /^\s*```(sh|bash|shell|console)\s*$/;
const FENCE = /^\s*```/;

/** README.md and every page under docs/ (the vendored Dataplane API specification excluded). */
export function docPages(root: string): string[] {
  const pages = ['README.md'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'dataplaneapi') walk(path);
      else if (entry.isFile() && entry.name.endsWith('.md')) pages.push(path);
    }
  };
  walk('docs');
  return pages.sort();
}

/** Strips a trailing `# comment` that stands outside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** Every command line of every shell block in the pages, in page order. */
export function docCommands(root: string, pages = docPages(root)): DocCommand[] {
  const out: DocCommand[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(root, page), 'utf8').split('\n');
    let inShell = false;
    let pending: DocCommand | undefined;
    for (const [i, raw] of lines.entries()) {
      if (!inShell) {
        inShell = SHELL_FENCE.test(raw);
        continue;
      }
      if (FENCE.test(raw)) {
        inShell = false;
        continue;
      }
      const text = stripComment(raw.trim().replace(/^\$\s+/, '')).trim();
      if (pending) {
        pending.text = `${pending.text} ${text.replace(/\\$/, '').trim()}`.trim();
        if (!text.endsWith('\\')) pending = undefined;
        continue;
      }
      if (text === '') continue;
      const cmd = {
        file: relative(root, join(root, page)),
        line: i + 1,
        text: text.replace(/\\$/, '').trim(),
      };
      out.push(cmd);
      if (text.endsWith('\\')) pending = cmd;
    }
  }
  return out;
}

/** Replaces each documented placeholder by its test-bed value, in one pass (longest first). */
export function substitute(text: string, values: Readonly<Record<string, string>>): string {
  const keys = Object.keys(values).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return text;
  const pattern = new RegExp(
    keys.map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'),
    'g',
  );
  return text.replace(pattern, (m) => values[m]!);
}

export interface ShellResult {
  code: number | null;
  output: string;
}

/** Runs one command line through bash, as a reader's shell would. */
export function sh(
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<ShellResult> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The documented commands that need a running demo, with the values its state file names. */
export function demoDocCommands(
  root: string,
  state: { kubeconfig: string; haproxy: { http: string } },
): string[] {
  return docCommands(root)
    .filter((c) => /<haproxy address>|<node address>|<printed path>/.test(c.text))
    .map((c) =>
      substitute(c.text, {
        'http://<haproxy address>:80': state.haproxy.http.replace(/\/$/, ''),
        // the HAProxy Service's node port, where the demo's state file points
        'http://<node address>:<node port>': state.haproxy.http.replace(/\/$/, ''),
        '<printed path>': state.kubeconfig,
      }),
    );
}
