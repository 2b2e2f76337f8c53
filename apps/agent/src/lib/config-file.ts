import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { applySectionEdits, SectionIndex, type SectionEdit } from './section-index.js';

const VERSION_LINE = /^# _version=(\d+)\s*$/m;
const META_LINES = /^# _(version|md5hash|cluster_version)=.*(\r?\n|$)/gm;

/** Reads the `# _version=N` line (0 when absent). */
export function versionOf(text: string): number {
  const m = VERSION_LINE.exec(text);
  return m ? Number(m[1]) : 0;
}

/** Removes the metadata lines (`# _version=`, `# _md5hash=` ...) a client may have sent. */
export function stripMeta(text: string): string {
  return text.replace(META_LINES, '');
}

/** Puts `# _version=N` as the first line, as client-native does, so the real API can take over. */
export function withVersion(body: string, version: number): string {
  return `# _version=${version}\n${stripMeta(body)}`;
}

/** MD5 hex of a text (the Configuration-Checksum header). */
export function md5(text: string | Buffer): string {
  return createHash('md5').update(text).digest('hex');
}

/** Writes a file atomically (temp file + rename), so HAProxy never reads half a file. */
export function writeAtomic(file: string, content: string | Buffer): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}

/**
 * The configuration file on disk with its version, cached in memory. Runtime changes queue their
 * section edits (`editSection`); they are applied together shortly after (WRITE_BEHIND_MS, so the
 * server operations of one deployment share one write and a request answers before it), and
 * before anything reads the text or a reload reads the file (`flush`). The sections are indexed
 * once per written body, so an edit costs its section and the write, not a parse of the file.
 */
/** How long queued runtime edits wait for the others of their deployment before the write. */
export const WRITE_BEHIND_MS = 20;

export class ConfigFile {
  private text: string;
  /** Lines and section spans of `text`, made at the first runtime edit after a write. */
  private index: SectionIndex | undefined;
  private pending: SectionEdit[] = [];
  private seq = 0;
  /** Edits queued since the oldest write under way began: that write applies them over its body. */
  private journal: (SectionEdit & { readonly seq: number })[] = [];
  private readonly marks = new Set<{ readonly seq: number }>();
  private scheduled: NodeJS.Timeout | undefined;
  /** True while the text in memory is newer than the file (a write-through failed). */
  private unwritten = false;

  constructor(
    readonly path: string,
    private readonly onWriteError: (e: unknown) => void = () => undefined,
  ) {
    this.text = readFileSync(path, 'utf8');
  }

  /** The whole file as on disk, `# _version=` line included (queued edits applied first). */
  get content(): string {
    this.flushReporting();
    return this.text;
  }
  /** Queued edits never change the version: reading it applies nothing. */
  get version(): number {
    return versionOf(this.text);
  }
  get checksum(): string {
    return md5(this.content);
  }

  /** Writes a body under a given version (queued edits are dropped: the body supersedes them). */
  write(body: string, version: number): void {
    this.writeOver(body, version, undefined);
  }

  /**
   * Runs a configuration write built from the text as it is now (checked by `haproxy -c` while
   * runtime changes go on): the runtime edits queued while `fn` runs are applied over the body it
   * writes, as they happened after it; the ones queued before are superseded by it.
   */
  async writeSince<T>(
    fn: (write: (body: string, version: number) => void) => Promise<T>,
  ): Promise<T> {
    const mark = { seq: this.seq };
    this.marks.add(mark);
    try {
      return await fn((body, version) => this.writeOver(body, version, mark.seq));
    } finally {
      this.marks.delete(mark);
      this.trimJournal();
    }
  }

  private writeOver(body: string, version: number, since: number | undefined): void {
    const later = since === undefined ? [] : this.journal.filter((e) => e.seq > since);
    const text = applySectionEdits(withVersion(body, version), later);
    this.pending = [];
    writeAtomic(this.path, text);
    this.text = text;
    this.index = undefined;
    this.unwritten = false;
  }

  private trimJournal(): void {
    if (this.marks.size === 0) this.journal = [];
    else {
      const oldest = Math.min(...[...this.marks].map((m) => m.seq));
      this.journal = this.journal.filter((e) => e.seq > oldest);
    }
  }

  /** Queues an edit of a backend's section, written with the others off the request's path. */
  editSection(backend: string, edit: (section: string) => string): void {
    const entry = { backend, edit, seq: ++this.seq };
    this.pending.push(entry);
    if (this.marks.size > 0) this.journal.push(entry);
    this.scheduled ??= setTimeout(() => {
      this.scheduled = undefined;
      this.flushReporting();
    }, WRITE_BEHIND_MS);
  }

  /** `flush`, a failed write reported instead of thrown (the text in memory is current). */
  private flushReporting(): void {
    try {
      this.flush();
    } catch (e) {
      this.onWriteError(e);
    }
  }

  /**
   * Applies the queued edits and writes the file when it changed (or a previous write failed).
   * Throws when the write fails; the text stays current in memory and the next flush retries.
   */
  flush(): void {
    if (this.pending.length > 0) {
      const edits = this.pending;
      this.pending = [];
      this.index ??= new SectionIndex(this.text);
      if (this.index.apply(edits)) {
        this.text = this.index.text();
        this.unwritten = true;
      }
    }
    if (!this.unwritten) return;
    writeAtomic(this.path, this.text);
    this.unwritten = false;
  }
}
