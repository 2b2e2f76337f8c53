import {
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { Field, IsPlainObject, listOf, recordOf } from './decorators.js';
import { REQUIRED, STRING, intRange, oneOf } from './messages.js';

/** A Liquid template. */
export class TemplateSpec {
  @Field('the Liquid template text')
  @IsDefined(REQUIRED)
  @IsString(STRING)
  template!: string;
}

export class TemplatingSettingsSpec {
  @Field('operator-defined values exposed to templates as `extra`')
  @IsPlainObject()
  extraContext: Record<string, unknown> = {};
}

export const ASSERTION_TYPES = [
  'haproxy_valid',
  'contains',
  'not_contains',
  'equals',
  'match_count',
  'match_order',
  'deterministic',
  'rendering_error',
  'jsonpath',
] as const;
export type AssertionType = (typeof ASSERTION_TYPES)[number];

/** Assertion types that need a `pattern`. */
const NEEDS_PATTERN: readonly AssertionType[] = [
  'contains',
  'not_contains',
  'match_count',
  'match_order',
];

export class AssertionSpec {
  @Field('what is checked: ' + ASSERTION_TYPES.join(', '))
  @IsDefined(REQUIRED)
  @IsIn(ASSERTION_TYPES, oneOf(ASSERTION_TYPES))
  type!: AssertionType;

  @Field(
    'output checked: haproxy.cfg (default), map:<name>, file:<name>, cert:<name> or crt-list:<name>',
  )
  @IsString(STRING)
  target = 'haproxy.cfg';

  @Field(
    'regular expression (contains, not_contains, match_count) or patterns in order (match_order)',
  )
  @ValidateIf((a: AssertionSpec) => NEEDS_PATTERN.includes(a.type) || a.pattern !== undefined)
  @IsDefined(REQUIRED)
  pattern?: string | string[];

  @Field('expected value (equals, match_count, jsonpath) or error text (rendering_error)')
  @IsOptional()
  expected?: unknown;

  @Field('field path into the render context, for jsonpath assertions')
  @ValidateIf((a: AssertionSpec) => a.type === 'jsonpath' || a.jsonpath !== undefined)
  @IsDefined(REQUIRED)
  @IsString(STRING)
  jsonpath?: string;

  @Field('what this assertion checks, in words')
  @IsOptional()
  @IsString(STRING)
  description?: string;
}

export class ValidationTestSpec {
  @Field('what the test covers, in words')
  @IsOptional()
  @IsString(STRING)
  description?: string;

  @Field('objects per watched resource, indexed as in production')
  @IsPlainObject()
  fixtures: Record<string, unknown[]> = {};

  @Field('values merged over templatingSettings.extraContext for this test')
  @IsOptional()
  @IsPlainObject()
  extraContext?: Record<string, unknown>;

  @Field('the checks run on the rendered outputs', { shape: listOf(() => AssertionSpec) })
  @IsArray({ message: 'must be a list of assertions' })
  assertions: AssertionSpec[] = [];
}

/** Validation policy of the rendered configuration. */
export class ValidationPolicySpec {
  @Field(
    'directives refused by default that this config may use, by id: lua-load, lua-load-per-thread, ' +
      'lua-prepend-path, lua, program, external-check, setenv, ssl-engine, ssl-provider, ' +
      'insecure-fork-wanted, default-path, filter-config, external-file',
  )
  @IsArray({ message: 'must be a list of directive ids' })
  @IsString({ each: true, message: 'must be a list of directive ids' })
  allowedDirectives: string[] = [];

  @Field(
    'server lines of backends checked apart per haproxy -c run: a larger haproxy.cfg is checked in ' +
      'parts (frontends and the backends other sections name first, then batches of the other ' +
      'backends), so one check holds a bounded share of it in memory; 0 checks the whole file at once',
  )
  @IsInt(intRange(0, 10_000_000))
  @Min(0, intRange(0, 10_000_000))
  @Max(10_000_000, intRange(0, 10_000_000))
  maxServersPerCheck = 5_000;
}

export const templateRecord = recordOf(() => TemplateSpec);
