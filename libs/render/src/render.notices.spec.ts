import { describe, expect, it } from 'vitest';
import { noticeFacts } from './render.listener.js';

const ref = (name: string) => ({
  watched: 'ingresses',
  kind: 'ingresses',
  namespace: 'apps',
  name,
});

describe('noticeFacts', () => {
  it('keeps notices about an object, one per (object, message), sorted, with a default reason', () => {
    expect(
      noticeFacts([
        { message: 'm2', object: ref('b'), reason: 'AnnotationNotHonoured' },
        { message: 'about nothing' },
        { message: 'm1', object: ref('a') },
        { message: 'm2', object: ref('b'), reason: 'AnnotationNotHonoured' },
      ]),
    ).toEqual([
      {
        watched: 'ingresses',
        object: { namespace: 'apps', name: 'a' },
        reason: 'RenderNotice',
        message: 'm1',
      },
      {
        watched: 'ingresses',
        object: { namespace: 'apps', name: 'b' },
        reason: 'AnnotationNotHonoured',
        message: 'm2',
      },
    ]);
  });
});
