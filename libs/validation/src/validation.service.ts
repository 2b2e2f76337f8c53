import { Inject, Injectable, Optional } from '@nestjs/common';
import type { DeepReadonly, TemplateConfigSpec } from '#core';
import { HaproxyChecker } from './lib/haproxy-check.js';
import type { TemplateTexts } from './lib/origin.js';
import type { RenderedOutputs, SourceMaps } from './lib/outputs.js';
import { validateOutputs, type ValidateOptions, type ValidationResult } from './lib/validate.js';
import { CheckerUnavailableError } from './validation.errors.js';

/** DI token: how `haproxy -c` runs in this process. */
export const VALIDATION_OPTIONS = Symbol('VALIDATION_OPTIONS');

export interface ValidationOptions {
  /** Absolute path of the HAProxy binary (the app resolves it with `#haproxy-bin`). */
  readonly haproxyBin: string;
  /** Per-check timeout (default 30 s). */
  readonly timeoutMs?: number;
  /**
   * `haproxy -c` runs at once in this process (default 1: the pipeline and the webhook's dry runs
   * share one slot, so the container's memory holds one check's peak, which the V8 heap limit
   * leaves room for; see heap-limit.ts).
   */
  readonly concurrency?: number;
  /** Values for `${VAR}` references in templates, e.g. POD_IP (default: none, i.e. empty). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Template and snippet texts by the names problems use, for tracing checker lines. */
export function templateTexts(spec: DeepReadonly<TemplateConfigSpec>): TemplateTexts {
  const out: Record<string, string> = { 'haproxy.cfg': spec.haproxyConfig.template };
  const add = (prefix: string, rec: DeepReadonly<Record<string, { template: string }>>) => {
    for (const [k, v] of Object.entries(rec)) out[`${prefix}${k}`] = v.template;
  };
  add('', spec.templateSnippets);
  add('map:', spec.maps);
  add('file:', spec.files);
  add('cert:', spec.sslCertificates);
  return out;
}

/** What a config's spec decides of validation: storage dirs, directive policy, check size, texts. */
export function specValidateOptions(
  spec: DeepReadonly<TemplateConfigSpec>,
): Pick<ValidateOptions, 'dirs' | 'allowedDirectives' | 'maxServersPerCheck' | 'templates'> {
  return {
    dirs: spec.dataplane,
    allowedDirectives: spec.validation.allowedDirectives,
    maxServersPerCheck: spec.validation.maxServersPerCheck,
    templates: templateTexts(spec),
  };
}

/** Validates renders of the current config: structure, directive policy, sandboxed `haproxy -c`. */
@Injectable()
export class ValidationService {
  readonly checker: HaproxyChecker;

  constructor(@Optional() @Inject(VALIDATION_OPTIONS) options?: ValidationOptions) {
    // Validation without haproxy -c would wave broken configs through: refuse to start instead.
    if (!options?.haproxyBin) {
      throw new CheckerUnavailableError('ValidationModule needs VALIDATION_OPTIONS.haproxyBin');
    }
    this.checker = new HaproxyChecker(
      {
        binary: options.haproxyBin,
        timeoutMs: options.timeoutMs ?? 30_000,
        ...(options.env ? { env: options.env } : {}),
      },
      options.concurrency ?? 1,
    );
  }

  /**
   * The structural checks and the directive policy alone (no `haproxy -c`): what must pass
   * before a render goes to pods that check it themselves.
   */
  validateStructure(
    spec: DeepReadonly<TemplateConfigSpec>,
    outputs: RenderedOutputs,
  ): Promise<ValidationResult> {
    return validateOutputs(outputs, specValidateOptions(spec));
  }

  /** Validates one render of `spec` (dirs and allowed directives come from the spec). */
  validate(
    spec: DeepReadonly<TemplateConfigSpec>,
    outputs: RenderedOutputs,
    sourceMaps?: SourceMaps,
  ): Promise<ValidationResult> {
    return validateOutputs(outputs, {
      ...specValidateOptions(spec),
      checker: this.checker,
      ...(sourceMaps ? { sourceMaps } : {}),
    });
  }
}
