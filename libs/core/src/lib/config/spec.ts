import {
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Min,
} from 'class-validator';
import { ControllerSpec, LoggingSpec } from './spec-controller.js';
import { DataplaneSpec, SecretRefSpec } from './spec-dataplane.js';
import { WatchedResourceSpec } from './spec-resources.js';
import {
  TemplateSpec,
  TemplatingSettingsSpec,
  ValidationPolicySpec,
  ValidationTestSpec,
  templateRecord,
} from './spec-templates.js';
import { Field, IsLabelMap, fieldPathProblem, listOf, nested, recordOf } from './decorators.js';
import { DNS_SUBDOMAIN, NAME, REQUIRED, STRING, STRING_LIST, oneOf } from './messages.js';

export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

export class LabelSelectorRequirementSpec {
  @Field('label key')
  @IsDefined(REQUIRED)
  @IsString(STRING)
  key!: string;

  @Field('In, NotIn, Exists or DoesNotExist')
  @IsDefined(REQUIRED)
  @IsIn(SELECTOR_OPERATORS, oneOf(SELECTOR_OPERATORS))
  operator!: (typeof SELECTOR_OPERATORS)[number];

  @Field('values for In and NotIn')
  @IsString({ each: true, ...STRING_LIST })
  values: string[] = [];
}

export class PodSelectorSpec {
  @Field('labels HAProxy pods carry (at least one)')
  @IsDefined(REQUIRED)
  @IsLabelMap()
  matchLabels!: Record<string, string>;

  @Field('further set-based requirements on pod labels', {
    shape: listOf(() => LabelSelectorRequirementSpec),
  })
  matchExpressions: LabelSelectorRequirementSpec[] = [];

  @Field('namespace of the HAProxy pods; any namespace when unset')
  @IsOptional()
  @Matches(DNS_SUBDOMAIN, NAME)
  namespace?: string;
}

/** The spec of a HAProxyTemplateConfig: everything the controller is told to do. */
export class TemplateConfigSpec {
  @Field('Secret with dataplane_username and dataplane_password', {
    shape: nested(() => SecretRefSpec),
  })
  @IsDefined(REQUIRED)
  credentialsSecretRef!: SecretRefSpec;

  @Field('which pods are the HAProxy pods to configure', { shape: nested(() => PodSelectorSpec) })
  @IsDefined(REQUIRED)
  podSelector!: PodSelectorSpec;

  @Field('leader election, reconcile timing and status publishing', {
    shape: nested(() => ControllerSpec),
  })
  controller = new ControllerSpec();

  @Field('logging settings', { shape: nested(() => LoggingSpec) })
  logging = new LoggingSpec();

  @Field('how the Dataplane API is reached and deployments are paced', {
    shape: nested(() => DataplaneSpec),
  })
  dataplane = new DataplaneSpec();

  @Field('settings of the template engine', { shape: nested(() => TemplatingSettingsSpec) })
  templatingSettings = new TemplatingSettingsSpec();

  @Field('field paths removed from every watched object before it is stored', {
    each: fieldPathProblem,
  })
  @IsArray({ message: 'must be a list of field paths' })
  watchedResourcesIgnoreFields: string[] = ['metadata.managedFields'];

  @Field('resource types to watch, by the name templates use (resources.<name>)', {
    shape: recordOf(() => WatchedResourceSpec),
  })
  @IsDefined(REQUIRED)
  watchedResources!: Record<string, WatchedResourceSpec>;

  @Field('named template snippets for render, include and render_glob', { shape: templateRecord })
  templateSnippets: Record<string, TemplateSpec> = {};

  @Field('the haproxy.cfg template', { shape: nested(() => TemplateSpec) })
  @IsDefined(REQUIRED)
  haproxyConfig!: TemplateSpec;

  @Field('map file templates, by file name', { shape: templateRecord })
  maps: Record<string, TemplateSpec> = {};

  @Field('general file templates (error pages and the like), by file name', {
    shape: templateRecord,
  })
  files: Record<string, TemplateSpec> = {};

  @Field('certificate templates (PEM), by file name', { shape: templateRecord })
  sslCertificates: Record<string, TemplateSpec> = {};

  @Field('what validation permits in the rendered configuration', {
    shape: nested(() => ValidationPolicySpec),
  })
  validation = new ValidationPolicySpec();

  @Field('embedded tests run by haptic validate and after each config change', {
    shape: recordOf(() => ValidationTestSpec),
  })
  validationTests: Record<string, ValidationTestSpec> = {};
}

export const CONDITION_TYPES = ['Valid', 'Rendered', 'Deployed', 'Ready'] as const;

export class ConditionSpec {
  @Field('Valid, Rendered, Deployed or Ready')
  @IsIn(CONDITION_TYPES, oneOf(CONDITION_TYPES))
  type!: (typeof CONDITION_TYPES)[number];

  @Field('True, False or Unknown')
  @IsIn(['True', 'False', 'Unknown'], oneOf(['True', 'False', 'Unknown']))
  status!: 'True' | 'False' | 'Unknown';

  @Field('machine-readable reason in CamelCase')
  @IsString(STRING)
  reason = '';

  @Field('what happened, for a person')
  @IsString(STRING)
  message = '';

  @Field('when status last changed (RFC 3339)')
  @IsString(STRING)
  lastTransitionTime = '';

  @Field('the generation this condition describes')
  @IsOptional()
  @IsInt()
  observedGeneration?: number;
}

export class PodStatusSpec {
  @Field('pod name')
  @IsString(STRING)
  name!: string;

  @Field('content hash of the configuration deployed to this pod')
  @IsString(STRING)
  deployedHash = '';

  @Field('when this pod last reloaded (RFC 3339)')
  @IsOptional()
  @IsString(STRING)
  lastReload?: string;

  @Field('the last deployment error for this pod, if any')
  @IsOptional()
  @IsString(STRING)
  lastError?: string;
}

/** The status the leader writes back on the HAProxyTemplateConfig. */
export class TemplateConfigStatus {
  @Field('the metadata.generation the status describes')
  @IsInt()
  @Min(0)
  observedGeneration = 0;

  @Field('Valid, Rendered, Deployed and Ready conditions', { shape: listOf(() => ConditionSpec) })
  conditions: ConditionSpec[] = [];

  @Field('content hash of the last rendered configuration')
  @IsString(STRING)
  lastRenderHash = '';

  @Field('per-pod deployment state', { shape: listOf(() => PodStatusSpec) })
  pods: PodStatusSpec[] = [];
}
