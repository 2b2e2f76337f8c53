import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
} from 'class-validator';
import { Field, IsDurationText, RefusedUnless, nested } from './decorators.js';
import type { DurationText } from './duration.js';
import { BOOLEAN, DNS_SUBDOMAIN, NAME, REQUIRED, STRING, intRange, oneOf } from './messages.js';

export class SecretRefSpec {
  @Field('name of the Secret')
  @IsDefined(REQUIRED)
  @Matches(DNS_SUBDOMAIN, NAME)
  name!: string;

  @Field('namespace of the Secret; defaults to the config resource namespace')
  @IsOptional()
  @Matches(DNS_SUBDOMAIN, NAME)
  namespace?: string;
}

export class DataplaneTlsSpec {
  @Field('Secret holding ca.crt to verify the Dataplane API certificate', {
    shape: nested(() => SecretRefSpec),
  })
  @IsOptional()
  @RefusedUnless((v) =>
    v === undefined
      ? undefined
      : 'haptic does not read a CA Secret for the Dataplane API yet: leave caSecretRef unset (the system CAs verify the API) or set insecureSkipVerify for testing',
  )
  caSecretRef?: SecretRefSpec;

  @Field('skip verification of the Dataplane API certificate (testing only)')
  @IsBoolean(BOOLEAN)
  insecureSkipVerify = false;
}

export const DATAPLANE_SCHEMES = ['http', 'https'] as const;

export class DataplaneSpec {
  @Field('port of the Dataplane API on each HAProxy pod')
  @IsInt(intRange(1, 65535))
  @Min(1, intRange(1, 65535))
  @Max(65535, intRange(1, 65535))
  port = 5555;

  @Field('scheme used to reach the Dataplane API: http or https')
  @IsIn(DATAPLANE_SCHEMES, oneOf(DATAPLANE_SCHEMES))
  scheme: (typeof DATAPLANE_SCHEMES)[number] = 'http';

  @Field('TLS settings when scheme is https', { shape: nested(() => DataplaneTlsSpec) })
  @IsOptional()
  tls?: DataplaneTlsSpec;

  @Field(
    'minimum time between the starts of two reloads of one pod when changes pile up (one that arrives while the pod reloads waits until this has passed since that reload began; a change arriving while no reload is under way, and runtime-only changes, never wait)',
  )
  @IsDurationText()
  minDeploymentInterval: DurationText = '500ms';

  @Field('how often the running configuration is re-read and drift corrected')
  @IsDurationText()
  driftPreventionInterval: DurationText = '60s';

  @Field('a deployment to one pod that takes longer than this fails')
  @IsDurationText()
  deploymentTimeout: DurationText = '30s';

  @Field('how many pods are deployed to at once')
  @IsInt(intRange(1, 1000))
  @Min(1, intRange(1, 1000))
  @Max(1000, intRange(1, 1000))
  maxParallel = 10;

  @Field('directory of map files on the HAProxy side')
  @IsString(STRING)
  mapsDir = '/etc/haproxy/maps';

  @Field('directory of certificates and crt-lists on the HAProxy side')
  @IsString(STRING)
  sslCertsDir = '/etc/haproxy/ssl';

  @Field('directory of general files (error pages and the like) on the HAProxy side')
  @IsString(STRING)
  generalStorageDir = '/etc/haproxy/general';

  @Field('path of haproxy.cfg on the HAProxy side')
  @IsString(STRING)
  configFile = '/etc/haproxy/haproxy.cfg';
}
