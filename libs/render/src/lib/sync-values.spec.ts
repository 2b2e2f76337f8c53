import { Context, Drop, Liquid, Value } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { installSyncValues } from './sync-values.js';

installSyncValues();

class Counter extends Drop {
  size = 7;
  double(): number {
    return 14;
  }
  override liquidMethodMissing(key: string): string {
    return `missing:${key}`;
  }
}

function scope(): Record<string, unknown> {
  return {
    a: { b: { c: 1, s: 'x y' }, list: [{ n: 'p' }, { n: 'q' }], 'dash-key': 'd' },
    list: [3, 1, 2],
    text: 'hello',
    empty_text: '',
    drop: new Counter(),
    get bad(): never {
      throw new Error('getter failed');
    },
  };
}

// A synchronous render takes the direct evaluation; an asynchronous one, liquidjs's generators.
const TEMPLATES = [
  '{{ a }}',
  '{{ a.b.c }}|{{ a["b"].s }}|{{ a.list[1].n }}|{{ a["dash-key"] }}',
  '{{ list.size }} {{ list.first }} {{ list.last }} {{ text.size }}',
  '{{ missing }}|{{ missing.x.y }}|{{ a.b.nope }}',
  '{{ "lit" | append: a.b.s | upcase }}',
  '{{ a.list | map: "n" | join: "," }}',
  '{{ a.list | where: "n", "q" | map: "n" | first }}',
  '{{ list | sort | join: "-" }}',
  '{{ empty_text | default: a.b.s }}|{{ nil | default: list.size }}',
  '{% assign x = a.b %}{{ x.c | plus: list.size }}',
  '{% if a.b.c == 1 %}one{% else %}other{% endif %}{% unless missing %}!{% endunless %}',
  '{% for i in list %}{{ forloop.index }}:{{ i }}{% endfor %}',
  '{{ drop.size }} {{ drop.double }} {{ drop.other }}',
  '{{ (1..3) | join: "," }}',
  '{% capture c %}{{ a.b.s }}{% endcapture %}{{ c | size }}',
  '{{ 1.5 | plus: 2 }} {{ true }} {{ nil }} {{ empty }}',
  '{{ a.list | slug: a.b.c }}',
];

describe('synchronous simple values', () => {
  const engine = new Liquid({ ownPropertyOnly: true });
  // A filter whose result is a generator (as liquidjs's own array filters are): still run.
  engine.registerFilter('slug', function* (v: unknown, n: unknown) {
    const list = (yield v) as { n: string }[];
    return `${list.map((i) => i.n).join('')}${String(n)}`;
  });

  it.each(TEMPLATES)('renders %j as liquidjs does', async (template) => {
    const expected = await engine.parseAndRender(template, scope());
    expect(engine.parseAndRenderSync(template, scope())).toBe(expected);
  });

  it('throws what liquidjs throws for a failing read, in and out of filter arguments', async () => {
    for (const template of ['{{ bad.x }}', '{{ "a" | append: bad }}', '{% assign y = bad %}']) {
      const expected = await engine.parseAndRender(template, scope()).catch((e: Error) => e);
      expect(expected).toBeInstanceOf(Error);
      const got = (() => {
        try {
          return engine.parseAndRenderSync(template, scope()) as unknown;
        } catch (e) {
          return e as Error;
        }
      })();
      expect(got).toBeInstanceOf((expected as Error).constructor);
      expect((got as Error).message).toBe((expected as Error).message);
    }
  });

  it('leaves strict variables to liquidjs', () => {
    const strict = new Liquid({ strictVariables: true });
    expect(() => {
      strict.parseAndRenderSync('{{ missing.x }}', {});
    }).toThrow(/undefined variable/);
    expect(strict.parseAndRenderSync('{{ a.b }}', { a: { b: 2 } })).toBe('2');
  });

  it('gives a plain value, not a generator, in a synchronous render only', () => {
    const value = new Value('a.b.c | plus: list.size', engine);
    const sync = new Context(scope(), engine.options, { sync: true }, { liquid: engine });
    expect(value.value(sync)).toBe(4);
    const async = new Context(scope(), engine.options, {}, { liquid: engine });
    expect(typeof (value.value(async) as Generator).next).toBe('function');
  });
});
