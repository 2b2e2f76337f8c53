import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
} from 'class-validator';
import { Field, IsLabelSelector, fieldPathProblem } from './decorators.js';
import { BOOLEAN, REQUIRED, STRING, oneOf } from './messages.js';

export const STORE_KINDS = ['full', 'on-demand'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** One watched resource type, exposed to templates as `resources.<name>`. */
export class WatchedResourceSpec {
  @Field('API version of the resource, e.g. v1 or networking.k8s.io/v1')
  @IsDefined(REQUIRED)
  @Matches(
    /^(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?v\d+(?:(?:alpha|beta)\d+)?$/,
    {
      message: 'must be an API version such as v1 or networking.k8s.io/v1',
    },
  )
  apiVersion!: string;

  @Field('plural resource name, e.g. ingresses')
  @IsDefined(REQUIRED)
  @Matches(/^[a-z][a-z0-9]*$/, {
    message: 'must be a lower-case plural resource name such as ingresses',
  })
  resources!: string;

  @Field('field paths whose values key the index, in look-up order (get/fetch filters)', {
    each: fieldPathProblem,
  })
  @IsDefined(REQUIRED)
  @IsArray({ message: 'must be a list of field paths' })
  @ArrayMinSize(1, { message: 'must name at least one field path' })
  indexBy!: string[];

  @Field('label selector (full Kubernetes syntax) objects must match')
  @IsOptional()
  @IsLabelSelector()
  labelSelector?: string;

  @Field(
    'field selector; sent to the API server where the kind supports it, applied locally otherwise',
  )
  @IsOptional()
  @IsString(STRING)
  fieldSelector?: string;

  @Field('label selector on Namespaces: only objects in matching namespaces are seen')
  @IsOptional()
  @IsLabelSelector()
  namespaceSelector?: string;

  @Field(
    'full keeps objects in memory; on-demand keeps references and fetches objects when rendering',
  )
  @IsIn(STORE_KINDS, oneOf(STORE_KINDS))
  store: StoreKind = 'full';

  @Field('check objects of this type in the validating admission webhook')
  @IsBoolean(BOOLEAN)
  enableValidationWebhook = false;
}
