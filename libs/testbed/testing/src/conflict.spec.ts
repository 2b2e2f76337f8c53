import { describe, expect, it } from 'vitest';
import { ApiWriteError, isConflict, updateOnConflict } from './conflict.js';

const conflict = () => new ApiWriteError('PUT x', 409, 'Operation cannot be fulfilled');

describe('updateOnConflict', () => {
  it('reads again and re-applies the change after a 409, writing what it read last', async () => {
    let version = 0;
    const written: number[] = [];
    const out = await updateOnConflict(
      () => Promise.resolve(++version),
      (read) => {
        if (read < 3) return Promise.reject(conflict());
        written.push(read);
        return Promise.resolve('ok');
      },
    );
    expect(out).toBe('ok');
    expect(written).toEqual([3]);
  });

  it('gives up after five conflicts in a row, naming them', async () => {
    let writes = 0;
    const err = await updateOnConflict(
      () => Promise.resolve({}),
      () => (writes++, Promise.reject(conflict())),
    ).catch((e: unknown) => e as Error);
    expect(writes).toBe(5);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/409 Conflict after 5/);
    expect(isConflict(err.cause)).toBe(true);
  });

  it('throws any other error at once', async () => {
    let writes = 0;
    const gone = new ApiWriteError('PUT x', 404, 'not found');
    await expect(
      updateOnConflict(
        () => Promise.resolve({}),
        () => (writes++, Promise.reject(gone)),
      ),
    ).rejects.toBe(gone);
    expect(writes).toBe(1);
  });

  it("knows client-node's ApiException (code) and this module's error (status)", () => {
    expect(isConflict({ code: 409 })).toBe(true);
    expect(isConflict(conflict())).toBe(true);
    expect(isConflict({ code: 500 })).toBe(false);
    expect(isConflict('409')).toBe(false);
  });
});
