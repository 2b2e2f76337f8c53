import { parseTemplateConfigText } from '#core';
import { describe, expect, it } from 'vitest';
import { emptyOutputs } from './lib/outputs.js';
import { formatProblem } from './lib/problems.js';
import { ValidationListener } from './validation.listener.js';
import { ValidationService, templateTexts } from './validation.service.js';

const yaml = (policy: string) => `
credentialsSecretRef: { name: c }
podSelector: { matchLabels: { app: haproxy } }
watchedResources:
  ingresses: { apiVersion: networking.k8s.io/v1, resources: ingresses, indexBy: [metadata.name] }
templateSnippets:
  lua-glue: { template: "  lua-load /etc/haproxy/general/x.lua" }
haproxyConfig: { template: "global\\n{% render 'lua-glue' %}\\n" }
${policy}`;

describe('ValidationService', () => {
  it('reads spec.validation.allowedDirectives (default: none) and rejects a non-list', () => {
    const none = parseTemplateConfigText(yaml(''));
    expect(none.ok && none.config.spec.validation.allowedDirectives).toEqual([]);
    const bad = parseTemplateConfigText(yaml('validation: { allowedDirectives: lua-load }'));
    expect(bad.ok).toBe(false);
  });

  it('refuses lua-load by default, naming the snippet that emitted it, without running haproxy', async () => {
    const parsed = parseTemplateConfigText(yaml(''));
    if (!parsed.ok) throw new Error('config');
    const service = new ValidationService({ haproxyBin: '/bin/false' });
    const outputs = {
      ...emptyOutputs('global\n  lua-load /etc/haproxy/general/x.lua\n'),
      files: { 'x.lua': '' },
    };
    const result = await service.validate(parsed.config.spec, outputs);
    expect(result.haproxy.ran).toBe(false);
    expect(result.problems.map(formatProblem)).toEqual([
      'haproxy.cfg:2 (probably from template "lua-glue" line 1): \'lua-load /etc/haproxy/general/x.lua\' is refused: it loads and runs Lua code (allow with spec.validation.allowedDirectives: [lua-load])',
    ]);
    expect(Object.keys(templateTexts(parsed.config.spec))).toEqual(['haproxy.cfg', 'lua-glue']);
  });

  it('lets the config allow it (then haproxy -c runs)', async () => {
    const parsed = parseTemplateConfigText(yaml('validation: { allowedDirectives: [lua-load] }'));
    if (!parsed.ok) throw new Error('config');
    // /bin/false stands in for haproxy: it runs, and fails, which proves the check was not skipped.
    const service = new ValidationService({ haproxyBin: '/bin/false' });
    const outputs = {
      ...emptyOutputs('global\n  lua-load /etc/haproxy/general/x.lua\n'),
      files: { 'x.lua': '' },
    };
    const result = await service.validate(parsed.config.spec, outputs);
    expect(result.haproxy.ran).toBe(true);
    expect(result.problems.map(formatProblem)).toEqual([
      'haproxy.cfg: haproxy -c failed (exit code 1)',
    ]);
  });
});

describe('ValidationModule', () => {
  it('refuses to start without a HAProxy binary', () => {
    expect(() => new ValidationService()).toThrow(/needs VALIDATION_OPTIONS.haproxyBin/);
  });

  it('provides the service through forRoot', async () => {
    const { Test } = await import('@nestjs/testing');
    const { ValidationModule } = await import('./validation.module.js');
    const { BusModule } = await import('#bus');
    const ref = await Test.createTestingModule({
      imports: [BusModule, ValidationModule.forRoot({ haproxyBin: '/bin/false', concurrency: 1 })],
    }).compile();
    expect(ref.get(ValidationService).checker.options.binary).toBe('/bin/false');
    expect(ref.get(ValidationListener)).toBeInstanceOf(ValidationListener);
    await ref.close();
  });
});
