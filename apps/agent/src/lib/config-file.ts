import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

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

/** The configuration file on disk with its version, cached in memory. */
export class ConfigFile {
  private text: string;

  constructor(readonly path: string) {
    this.text = readFileSync(path, 'utf8');
  }

  /** The whole file as on disk, `# _version=` line included. */
  get content(): string {
    return this.text;
  }
  get version(): number {
    return versionOf(this.text);
  }
  get checksum(): string {
    return md5(this.text);
  }

  /** Writes a body under a given version. */
  write(body: string, version: number): void {
    const text = withVersion(body, version);
    writeAtomic(this.path, text);
    this.text = text;
  }

  /** Rewrites the file content keeping its version (runtime write-through). */
  replaceKeepingVersion(text: string): void {
    this.write(text, this.version);
  }
}
