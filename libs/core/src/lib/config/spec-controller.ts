import { IsBoolean, IsIn, IsOptional, IsString, Matches } from 'class-validator';
import { Field, IsDurationText, nested } from './decorators.js';
import type { DurationText } from './duration.js';
import { BOOLEAN, STRING, STRING_LIST, oneOf } from './messages.js';

export class LeaderElectionSpec {
  @Field('run leader election; off only for a single replica')
  @IsBoolean(BOOLEAN)
  enabled = true;

  @Field('name of the coordination.k8s.io Lease; empty means the config resource name')
  @IsString(STRING)
  leaseName = '';

  @Field('how long a lease is valid without renewal')
  @IsDurationText()
  leaseDuration: DurationText = '15s';

  @Field('how long the leader keeps retrying a renewal before giving up leadership')
  @IsDurationText()
  renewDeadline: DurationText = '10s';

  @Field('pause between acquisition or renewal attempts')
  @IsDurationText()
  retryPeriod: DurationText = '2s';
}

export class ReconcileSpec {
  @Field(
    'a change that finds the loop idle renders at once; changes arriving while a render runs are rendered together once none arrived for this long (0s: as soon as the render ends)',
  )
  @IsDurationText()
  debounce: DurationText = '0s';

  @Field('no change waits longer than this before a render starts')
  @IsDurationText()
  maxDelay: DurationText = '1s';
}

/** An IPv4 or IPv6 address, or a DNS name (what `status.loadBalancer.ingress` can hold). */
const ADDRESS =
  /^(?:[0-9.]+|[0-9a-fA-F:]+|[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)$/;

export class StatusPublishingSpec {
  @Field(
    "Service (namespace/name) whose address is written to Ingress status: its load-balancer ingress (LoadBalancer), its Nodes' addresses (NodePort) or its external/cluster IPs",
  )
  @IsOptional()
  @Matches(/^[a-z0-9-]+\/[a-z0-9.-]+$/, { message: 'must be namespace/name' })
  publishService?: string;

  @Field(
    'fixed IP addresses or DNS names written to Ingress status (used when publishService is unset)',
  )
  @IsString({ each: true, ...STRING_LIST })
  @Matches(ADDRESS, { each: true, message: 'each must be an IP address or a DNS name' })
  addresses: string[] = [];
}

export class ControllerSpec {
  @Field('leader election between controller replicas', { shape: nested(() => LeaderElectionSpec) })
  leaderElection = new LeaderElectionSpec();

  @Field('timing of the render-validate-deploy loop', { shape: nested(() => ReconcileSpec) })
  reconcile = new ReconcileSpec();

  @Field('the address haptic writes to the status of the Ingresses it serves', {
    shape: nested(() => StatusPublishingSpec),
  })
  status = new StatusPublishingSpec();
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class LoggingSpec {
  @Field('log level: debug, info, warn or error')
  @IsIn(LOG_LEVELS, oneOf(LOG_LEVELS))
  level: LogLevel = 'info';
}
