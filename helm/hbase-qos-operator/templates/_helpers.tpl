{{- define "hbq.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "hbq.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "hbq.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hbq.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "hbq.labels" -}}
{{ include "hbq.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "hbq.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "hbq.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The rules the reconcilers need on the operator's own resources, in a watched namespace. */}}
{{- define "hbq.namespacedRules" -}}
- apiGroups: [hbaseqos.io]
  resources: [hbaseclusters, tenantquotas]
  verbs: [get, list, watch, patch, update]
- apiGroups: [hbaseqos.io]
  resources: [hbaseclusters/status, tenantquotas/status]
  verbs: [patch]
# events: a repeat raises the count of the Event already created (patch), as Kubernetes aggregates them
- apiGroups: [""]
  resources: [events]
  verbs: [create, patch]
# HBaseCluster topology, read everywhere: the StatefulSets and their pods (written only in the
# namespaces of topology.namespaces, see hbq.topologyRules); ConfigMaps read for the records of
# retained quotas that versions before 0.2 kept beside an HBaseCluster
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get]
{{- end -}}

{{/*
Rules in the namespaces of topology.namespaces only: the RegionServer and master StatefulSets, the
hbase-site.xml ConfigMap, headless Services and PodDisruptionBudgets (written by server-side apply;
removed by garbage collection through owner references, never deleted by the operator). Each is a
dependent of its HBaseCluster, read from an informer of its kind in these namespaces (list, watch;
StatefulSets are read everywhere, see hbq.namespacedRules).
*/}}
{{- define "hbq.topologyRules" -}}
- apiGroups: [apps]
  resources: [statefulsets]
  verbs: [get, create, patch]
- apiGroups: [""]
  resources: [configmaps, services]
  verbs: [get, list, watch, create, patch]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, patch]
{{- end -}}

{{/* Text as XML character data: &, < and > escaped (hbase-site.xml values). */}}
{{- define "hbq.xml" -}}
{{- . | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;" -}}
{{- end }}
