import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { describe, expect, it } from 'vitest';
import type { ProviderContext, RenderSnapshot } from '#render';
import { discoveredContextProviders, TemplateContext } from './extension.js';

@Injectable()
class Greeter {
  readonly word = 'hello';
}

@TemplateContext({ name: 'team', lazy: true })
@Injectable()
class TeamContext {
  constructor(private readonly greeter: Greeter) {}
  provide(snapshot: RenderSnapshot, context: ProviderContext): unknown {
    return { greeting: this.greeter.word, n: snapshot.list('x').length, extra: context.extra };
  }
}

@Module({ providers: [Greeter, TeamContext] })
class TeamModule {}

describe('@TemplateContext', () => {
  it('turns a decorated provider of any module into a context provider of the registry', async () => {
    const app = await Test.createTestingModule({
      imports: [DiscoveryModule, TeamModule],
    }).compile();
    const providers = discoveredContextProviders(app.get(DiscoveryService));
    expect(providers.map((p) => ({ name: p.name, lazy: p.lazy }))).toEqual([
      { name: 'team', lazy: true },
    ]);
    const snapshot: RenderSnapshot = { list: () => [{}, {}], lookup: () => [] };
    expect(providers[0]!.provide(snapshot, { extra: { a: 1 }, watched: ['x'] })).toEqual({
      greeting: 'hello',
      n: 2,
      extra: { a: 1 },
    });
    await app.close();
  });
});
