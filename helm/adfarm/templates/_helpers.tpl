{{/* The app's name: the chart's, unless nameOverride is set. */}}
{{- define "adfarm.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Prefix of every object's name, at most 63 characters: fullnameOverride when
set, else RELEASE-nameOverride when nameOverride is set, else the release
name, so release "demo" gets demo-coordinator, demo-worker-solve, ...
*/}}
{{- define "adfarm.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if .Values.nameOverride -}}
{{- printf "%s-%s" .Release.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels every object carries. */}}
{{- define "adfarm.labels" -}}
app.kubernetes.io/name: {{ include "adfarm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Labels that select this release's pods. */}}
{{- define "adfarm.selectorLabels" -}}
app.kubernetes.io/name: {{ include "adfarm.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "adfarm.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "adfarm.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "adfarm.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Environment shared by the coordinator and the workers. */}}
{{- define "adfarm.env" -}}
- name: ADFARM_PREFIX
  value: {{ .Values.prefix | quote }}
- name: ADFARM_GRACE_SECS
  value: {{ .Values.shutdown.graceSeconds | int | quote }}
- name: ADFARM_AMQP_URL
{{- if .Values.rabbitmq.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ .Values.rabbitmq.existingSecret }}
      key: {{ .Values.rabbitmq.secretKey }}
{{- else }}
  value: {{ .Values.rabbitmq.url | quote }}
{{- end }}
- name: ADFARM_REDIS_URL
{{- if .Values.redis.existingSecret }}
  valueFrom:
    secretKeyRef:
      name: {{ .Values.redis.existingSecret }}
      key: {{ .Values.redis.secretKey }}
{{- else }}
  value: {{ .Values.redis.url | quote }}
{{- end }}
{{- range .Values.apiKeys }}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .secretName }}
      key: {{ .secretKey }}
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
The pod's grace period: the process's own grace (ADFARM_GRACE_SECS) plus
10 s for what follows the drain (the process itself ends at most 5 s past
its grace), so Kubernetes never kills a pod that is still draining.
*/}}
{{- define "adfarm.terminationGracePeriodSeconds" -}}
{{- add (.Values.shutdown.graceSeconds | int) 10 -}}
{{- end -}}

{{/* Pod-level hardening: non-root, no privilege escalation. */}}
{{- define "adfarm.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "adfarm.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop:
    - ALL
{{- end -}}
