/**
 * The pass loop both status writers share: writes each item in turn while `live()` holds (the
 * leader still leads, its term not aborted), and hands a failed write to `failed` so one bad
 * object never stops the others.
 */
export async function writeEach<T>(
  writes: Iterable<T>,
  live: () => boolean,
  write: (w: T) => Promise<void>,
  failed: (w: T, e: unknown) => void,
): Promise<void> {
  for (const w of writes) {
    if (!live()) return;
    try {
      await write(w);
    } catch (e) {
      failed(w, e);
    }
  }
}
