{{/* Names: <release>-haptic, or the release name alone when it already contains "haptic". */}}
{{- define "haptic.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "haptic.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "haptic.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of a derived object: <fullname>-<suffix>, kept within 63 characters. */}}
{{- define "haptic.child" -}}
{{- printf "%s-%s" (include "haptic.fullname" .ctx | trunc (int (sub 62 (len .suffix))) | trimSuffix "-") .suffix -}}
{{- end -}}

{{- define "haptic.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "haptic.labels" -}}
helm.sh/chart: {{ include "haptic.chart" . }}
app.kubernetes.io/name: {{ include "haptic.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: haptic
{{- end -}}

{{/* Selector labels of one component (controller or loadbalancer). */}}
{{- define "haptic.selectorLabels" -}}
app.kubernetes.io/name: {{ include "haptic.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "haptic.controller.name" -}}{{ include "haptic.child" (dict "ctx" . "suffix" "controller") }}{{- end -}}
{{- define "haptic.haproxy.name" -}}{{ include "haptic.child" (dict "ctx" . "suffix" "haproxy") }}{{- end -}}
{{- define "haptic.config.name" -}}{{ default (include "haptic.fullname" .) .Values.controller.config.name }}{{- end -}}
{{- define "haptic.webhook.name" -}}{{ include "haptic.child" (dict "ctx" . "suffix" "webhook") }}{{- end -}}
{{- define "haptic.webhookCert.name" -}}{{ include "haptic.child" (dict "ctx" . "suffix" "webhook-tls") }}{{- end -}}

{{- define "haptic.selfSignedCertificate.name" -}}{{ include "haptic.child" (dict "ctx" . "suffix" "default-tls") }}{{- end -}}

{{- /*
"namespace/name" of the Secret the controller keeps its self-signed default certificate in, or ""
when the config that runs names another certificate (or its library has none, or it is off).
*/ -}}
{{- define "haptic.selfSignedCertificate.ref" -}}
{{- if and .Values.controller.selfSignedCertificate.enabled .Values.controller.config.create -}}
{{- $spec := include "haptic.config.spec" . | fromYaml -}}
{{- $ref := printf "%s/%s" .Release.Namespace (include "haptic.selfSignedCertificate.name" .) -}}
{{- if eq (dig "templatingSettings" "extraContext" "default_certificate" "" $spec) $ref }}{{ $ref }}{{ end -}}
{{- end -}}
{{- end -}}

{{- define "haptic.credentials.name" -}}
{{- default (include "haptic.child" (dict "ctx" . "suffix" "credentials")) .Values.credentials.existingSecret -}}
{{- end -}}

{{/*
The chart's Dataplane API password: the value when given, else the one already in the cluster
(lookup: upgrades keep it), else a new one on a real install. With no cluster to ask (`helm
template`, a client-side dry run: lookup answers nothing, not even for kube-system) a new random
one each render would make GitOps tools rewrite the Secret on every sync: refused instead.
Computed once per render, so the Secret and the pods' checksum agree.
*/}}
{{- define "haptic.credentials.password" -}}
{{- if not (hasKey .Values "_passwordCache") -}}
{{- $password := .Values.credentials.password -}}
{{- if not $password -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "haptic.credentials.name" .) -}}
{{- if and $existing $existing.data (hasKey $existing.data "dataplane_password") -}}
{{- $password = index $existing.data "dataplane_password" | b64dec -}}
{{- else if not (lookup "v1" "Namespace" "" "kube-system") -}}
{{- fail "credentials: no cluster to read the Dataplane API password from (helm template or a client-side dry run): set credentials.existingSecret (a Secret you manage, keys dataplane_username and dataplane_password) or credentials.password" -}}
{{- else -}}
{{- $password = randAlphaNum 32 -}}
{{- end -}}
{{- end -}}
{{- $_ := set .Values "_passwordCache" $password -}}
{{- end -}}
{{- get .Values "_passwordCache" -}}
{{- end -}}

{{/*
A checksum of the Dataplane API credentials, for the pods that read them at start to roll when
they change: the chart's own (username and password), or the existing Secret's data as the
cluster holds it (nothing to read under `helm template`: a constant then).
*/}}
{{- define "haptic.credentials.checksum" -}}
{{- if .Values.credentials.existingSecret -}}
{{- $s := lookup "v1" "Secret" .Release.Namespace .Values.credentials.existingSecret -}}
{{- toJson (default dict (get (default dict $s) "data")) | sha256sum -}}
{{- else -}}
{{- printf "%s:%s" .Values.credentials.username (include "haptic.credentials.password" .) | sha256sum -}}
{{- end -}}
{{- end -}}

{{/* The IngressClass name: <fullname>, or ingress-nginx's `nginx` with the ingress-nginx library. */}}
{{- define "haptic.ingressClass.name" -}}
{{- $fallback := ternary "nginx" (include "haptic.fullname" .) (eq .Values.controller.config.library "ingress-nginx") -}}
{{- default $fallback .Values.ingressClass.name -}}
{{- end -}}

{{/* The IngressClass controller name: per release, so two releases can share a cluster; with the
     ingress-nginx library ingress-nginx's own (k8s.io/ingress-nginx), so the IngressClass it left
     behind and its Ingresses are served unchanged. */}}
{{- define "haptic.controllerName" -}}
{{- $fallback := printf "haproxy-haptic.org/%s.%s" .Release.Namespace (include "haptic.fullname" .) -}}
{{- if eq .Values.controller.config.library "ingress-nginx" }}{{ $fallback = "k8s.io/ingress-nginx" }}{{ end -}}
{{- default $fallback .Values.ingressClass.controllerName -}}
{{- end -}}

{{- define "haptic.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The image of the HAProxy pods' HAProxy: haproxy.image, or in dataplaneapi mode the one
     image that holds both HAProxy and the real Dataplane API. */}}
{{- define "haptic.haproxy.imageValues" -}}
{{- if eq .Values.haproxy.dataplane.mode "dataplaneapi" }}{{ toYaml .Values.haproxy.dataplane.image }}{{ else }}{{ toYaml .Values.haproxy.image }}{{ end -}}
{{- end -}}

{{- define "haptic.haproxy.image" -}}
{{- $i := include "haptic.haproxy.imageValues" . | fromYaml -}}
{{- printf "%s:%s" $i.repository $i.tag -}}
{{- end -}}

{{- define "haptic.haproxy.pullPolicy" -}}
{{- (include "haptic.haproxy.imageValues" . | fromYaml).pullPolicy -}}
{{- end -}}

{{/* The HAProxy pods' labels the config's podSelector matches (the release's own pods only). */}}
{{- define "haptic.podSelector" -}}
{{- $labels := merge (dict "app.kubernetes.io/instance" .Release.Name) (deepCopy .Values.controller.config.podSelector.matchLabels) -}}
matchLabels:
{{- toYaml $labels | nindent 2 }}
{{- with .Values.controller.config.podSelector.matchExpressions }}
matchExpressions:
{{- toYaml . | nindent 2 }}
{{- end }}
namespace: {{ .Release.Namespace }}
{{- end -}}

{{/*
The HAProxyTemplateConfig spec: the template library kept as files under libraries/<name>/
(the same layout scripts/assemble-library.mjs reads), with the release's settings on top.
*/}}
{{- define "haptic.config.spec" -}}
{{- $cfg := .Values.controller.config -}}
{{- $lib := printf "libraries/%s" $cfg.library -}}
{{- $doc := .Files.Get (printf "%s/library.yaml" $lib) | fromYaml -}}
{{- if not $doc.spec }}{{ fail (printf "controller.config.library: no library %q in the chart" $cfg.library) }}{{ end -}}
{{- $spec := deepCopy $doc.spec -}}
{{- $_ := set $spec "credentialsSecretRef" (dict "name" (include "haptic.credentials.name" .) "namespace" .Release.Namespace) -}}
{{- $_ := set $spec "podSelector" (include "haptic.podSelector" . | fromYaml) -}}
{{- $le := .Values.controller.leaderElection -}}
{{- /* Ingress status names the HAProxy Service's address (LoadBalancer ingress, or the Nodes' addresses for NodePort). */ -}}
{{- $_ := set $spec "controller" (dict
      "leaderElection" (dict "enabled" $le.enabled "leaseName" (include "haptic.controller.name" .) "leaseDuration" $le.leaseDuration "renewDeadline" $le.renewDeadline "retryPeriod" $le.retryPeriod)
      "reconcile" $cfg.reconcile
      "status" (dict "publishService" (printf "%s/%s" .Release.Namespace (include "haptic.haproxy.name" .)))) -}}
{{- /* Ingresses are checked by the webhook only with the webhook on (the library itself opts in
       to nothing, so that it works with the webhook off). */ -}}
{{- if and .Values.webhook.enabled (hasKey $spec.watchedResources "ingresses") }}{{ $_ := set (index $spec.watchedResources "ingresses") "enableValidationWebhook" true }}{{ end -}}
{{- $_ := set $spec "logging" (dict "level" .Values.controller.logLevel) -}}
{{- /* With the agent, storage paths are relative to HAProxy's working directory, the shared
       /etc/haproxy (the haproxy container's workingDir): the same rendered config holds in the pod, in
       the controller's `haproxy -c` tree and on a test-bed node. The real sidecar keeps the
       default absolute /etc/haproxy/... paths its dataplaneapi.yaml names. */ -}}
{{- $dirs := dict -}}
{{- $relative := eq .Values.haproxy.dataplane.mode "agent" -}}
{{- if $relative }}{{ $dirs = dict "mapsDir" "maps" "sslCertsDir" "ssl" "generalStorageDir" "general" }}{{ end -}}
{{- $_ := set $spec "dataplane" (merge (dict "port" (int .Values.haproxy.ports.dataplane) "scheme" "http") $dirs $cfg.dataplane) -}}
{{- $libExtra := deepCopy (default dict (dig "templatingSettings" "extraContext" dict $spec)) -}}
{{- $extra := deepCopy $libExtra -}}
{{- $extra = mergeOverwrite $extra (deepCopy $cfg.extraContext) -}}
{{- $_ := set $extra "controller_name" (include "haptic.controllerName" .) -}}
{{- /* The Gateway API library: GatewayClasses naming this release's controller are served. */ -}}
{{- if hasKey $libExtra "gateway_controller_name" }}{{ $_ := set $extra "gateway_controller_name" (include "haptic.controllerName" .) }}{{ end -}}
{{- $_ := set $extra "http_port" (int .Values.haproxy.ports.http) -}}
{{- $_ := set $extra "https_port" (int .Values.haproxy.ports.https) -}}
{{- $_ := set $extra "stats_port" (int .Values.haproxy.ports.stats) -}}
{{- with .Values.controller.defaultCertificate }}{{ if hasKey $libExtra "default_certificate" }}{{ $_ := set $extra "default_certificate" . }}{{ else }}{{ fail (printf "controller.defaultCertificate: the library %q has no default_certificate setting" $cfg.library) }}{{ end }}{{ end -}}
{{- if and .Values.controller.selfSignedCertificate.enabled (hasKey $libExtra "default_certificate") (not $extra.default_certificate) }}{{ $_ := set $extra "default_certificate" (printf "%s/%s" .Release.Namespace (include "haptic.selfSignedCertificate.name" .)) }}{{ end -}}
{{- $pp := .Values.haproxy.proxyProtocol -}}
{{- if hasKey $libExtra "proxy_protocol" }}{{ $_ := set $extra "proxy_protocol" $pp.enabled }}{{ $_ := set $extra "proxy_protocol_trusted" $pp.trustedCidrs }}{{ else if $pp.enabled }}{{ fail (printf "haproxy.proxyProtocol.enabled: the library %q has no proxy_protocol setting" $cfg.library) }}{{ end -}}
{{- if hasKey $libExtra "prometheus_exporter" }}{{ $_ := set $extra "prometheus_exporter" .Values.metrics.haproxyExporter.enabled }}{{ end -}}
{{- $_ := set $spec "templatingSettings" (dict "extraContext" $extra) -}}
{{- $_ := set $spec "haproxyConfig" (dict "template" ($.Files.Get (printf "%s/haproxy.cfg.liquid" $lib))) -}}
{{- $snippets := dict -}}
{{- range $path, $_ := $.Files.Glob (printf "%s/snippets/*.liquid" $lib) }}{{ $_ := set $snippets (base $path | trimSuffix ".liquid") (dict "template" ($.Files.Get $path)) }}{{ end -}}
{{- /* The drain bound of the HAProxy pods (their terminationGracePeriodSeconds covers it). */ -}}
{{- $_ := set $snippets "global-900-chart-hard-stop-after" (dict "template" (printf "\n  hard-stop-after %s" .Values.haproxy.hardStopAfter)) -}}
{{- range $name, $text := $cfg.templateSnippets }}{{ $_ := set $snippets $name (dict "template" $text) }}{{ end -}}
{{- $_ := set $spec "templateSnippets" $snippets -}}
{{- range $kind := list "maps" "files" "certificates" -}}
{{- $out := dict -}}
{{- range $path, $_ := $.Files.Glob (printf "%s/%s/*.liquid" $lib $kind) }}{{ $_ := set $out (base $path | trimSuffix ".liquid") (dict "template" ($.Files.Get $path)) }}{{ end -}}
{{- if $out }}{{ $_ := set $spec (ternary "sslCertificates" $kind (eq $kind "certificates")) $out }}{{ end -}}
{{- end -}}
{{- if $cfg.validationTests -}}
{{- $tests := dict -}}
{{- range $path, $_ := $.Files.Glob (printf "%s/tests/*.yaml" $lib) -}}
{{- /* The tests name the library's default storage paths (/etc/haproxy/maps/...); with the
       relative ones of agent mode (above) they name maps/..., as the rendered files do. */ -}}
{{- $text := $.Files.Get $path -}}
{{- if $relative }}{{ $text = replace "/etc/haproxy/" "" $text }}{{ end -}}
{{- range $name, $test := ($text | fromYaml) -}}
{{- if hasKey $tests $name }}{{ fail (printf "validation test %s is defined twice (%s)" $name $path) }}{{ end -}}
{{- /* The library's tests are written against its own defaults for what the chart sets. */ -}}
{{- $pinned := dict -}}
{{- range $k := list "controller_name" "gateway_controller_name" "http_port" "https_port" "stats_port" }}{{ if hasKey $libExtra $k }}{{ $_ := set $pinned $k (get $libExtra $k) }}{{ end }}{{ end -}}
{{- $_ := set $test "extraContext" (mergeOverwrite $pinned (default dict $test.extraContext)) -}}
{{- $_ := set $tests $name $test -}}
{{- end -}}
{{- end -}}
{{- $_ := set $spec "validationTests" $tests -}}
{{- end -}}
{{- toYaml $spec -}}
{{- end -}}

{{/*
The webhook's matchConditions for Ingresses: this release's class only, read as the ingress
library reads it (the legacy kubernetes.io/ingress.class annotation wins over
spec.ingressClassName); an Ingress without a class only when ingressClass.default is on.
*/}}
{{- define "haptic.webhook.classCondition" -}}
{{- $class := include "haptic.ingressClass.name" . | toJson -}}
{{- $annotation := "'kubernetes.io/ingress.class'" -}}
- name: ingress-class
  expression: >-
    has(object.metadata.annotations) && {{ $annotation }} in object.metadata.annotations
    ? object.metadata.annotations[{{ $annotation }}] == {{ $class }}
    : (has(object.spec.ingressClassName)
    ? object.spec.ingressClassName == {{ $class }}
    : {{ .Values.ingressClass.default }})
{{- end -}}

{{/* DNS names of the controller Service, as the API server addresses the webhook. */}}
{{- define "haptic.webhook.dnsNames" -}}
{{- $svc := include "haptic.controller.name" . -}}
{{- $ns := .Release.Namespace -}}
{{- toJson (list $svc (printf "%s.%s" $svc $ns) (printf "%s.%s.svc" $svc $ns) (printf "%s.%s.svc.cluster.local" $svc $ns)) -}}
{{- end -}}

{{/*
The generated webhook certificate (ca.crt, tls.crt, tls.key, base64): the one already in the
cluster when there is one (lookup; upgrades keep it), else a new CA and a certificate signed by it.
Computed once per render, so the Secret, the caBundle and the pods' checksum agree.
*/}}
{{- define "haptic.webhook.tls" -}}
{{- if not (hasKey .Values "_webhookTlsCache") -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "haptic.webhookCert.name" .) -}}
{{- $data := dict -}}
{{- if and $existing $existing.data (hasKey $existing.data "ca.crt") (hasKey $existing.data "tls.crt") (hasKey $existing.data "tls.key") -}}
{{- $data = dict "ca.crt" (index $existing.data "ca.crt") "tls.crt" (index $existing.data "tls.crt") "tls.key" (index $existing.data "tls.key") -}}
{{- else -}}
{{- $days := int .Values.webhook.generatedCertValidityDays -}}
{{- $ca := genCA (printf "%s-webhook-ca" (include "haptic.fullname" .)) $days -}}
{{- $dns := include "haptic.webhook.dnsNames" . | fromJsonArray -}}
{{- $cert := genSignedCert (first $dns) nil $dns $days $ca -}}
{{- $data = dict "ca.crt" ($ca.Cert | b64enc) "tls.crt" ($cert.Cert | b64enc) "tls.key" ($cert.Key | b64enc) -}}
{{- end -}}
{{- $_ := set .Values "_webhookTlsCache" $data -}}
{{- end -}}
{{- toYaml (get .Values "_webhookTlsCache") -}}
{{- end -}}

{{/*
POD_IP from the downward API, for every container where HAProxy runs or its config is read:
the rendered config binds "${POD_IP}:<port>" (the pod's own address, IPv4 or IPv6).
*/}}
{{- define "haptic.podIPEnv" -}}
- name: POD_IP
  valueFrom:
    fieldRef:
      fieldPath: status.podIP
{{- end -}}

{{/* Security context of the HAProxy pod's containers; bind: may bind ports below 1024. */}}
{{- define "haptic.haproxy.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
  {{- if .bind }}
  add: [NET_BIND_SERVICE]
  {{- end }}
{{- end -}}
