package typeconfig

import (
	"slices"
	"strings"
)

// defaults are the types a KubeFed control plane federates out of the box
// (config/enabletypedirectives/*.yaml in kubefed), at the API versions
// current Kubernetes serves them. Singular and short names are what
// discovery reports for them, so that "fedctl disable deploy" works without
// asking a cluster.
var defaults = []Resource{
	{Type: Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: Namespaced}, Singular: "configmap", ShortNames: []string{"cm"}},
	{Type: Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: Namespaced}, Singular: "deployment", ShortNames: []string{"deploy"}},
	{Type: Type{Group: "networking.k8s.io", Version: "v1", Kind: "Ingress", Plural: "ingresses", Scope: Namespaced}, Singular: "ingress", ShortNames: []string{"ing"}},
	{Type: Type{Group: "batch", Version: "v1", Kind: "Job", Plural: "jobs", Scope: Namespaced}, Singular: "job"},
	{Type: Type{Version: "v1", Kind: "Namespace", Plural: "namespaces", Scope: Cluster}, Singular: "namespace", ShortNames: []string{"ns"}},
	{Type: Type{Group: "apps", Version: "v1", Kind: "ReplicaSet", Plural: "replicasets", Scope: Namespaced}, Singular: "replicaset", ShortNames: []string{"rs"}},
	{Type: Type{Version: "v1", Kind: "Secret", Plural: "secrets", Scope: Namespaced}, Singular: "secret"},
	{Type: Type{Version: "v1", Kind: "ServiceAccount", Plural: "serviceaccounts", Scope: Namespaced}, Singular: "serviceaccount", ShortNames: []string{"sa"}},
	{Type: Type{Version: "v1", Kind: "Service", Plural: "services", Scope: Namespaced}, Singular: "service", ShortNames: []string{"svc"}},
	{Type: Type{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Plural: "clusterroles", Scope: Cluster}, Singular: "clusterrole"},
}

// builtinShortNames are the short names Kubernetes' own types have in
// discovery, by "<group>/<Kind>", beyond the defaults. With them a type
// enabled as "sts" can be disabled as "sts" without asking a cluster; short
// names of custom resources are known only to their clusters.
var builtinShortNames = map[string][]string{
	"/ComponentStatus":       {"cs"},
	"/Endpoints":             {"ep"},
	"/Event":                 {"ev"},
	"/LimitRange":            {"limits"},
	"/Node":                  {"no"},
	"/PersistentVolume":      {"pv"},
	"/PersistentVolumeClaim": {"pvc"},
	"/Pod":                   {"po"},
	"/ReplicationController": {"rc"},
	"/ResourceQuota":         {"quota"},
	"apiextensions.k8s.io/CustomResourceDefinition": {"crd", "crds"},
	"apps/DaemonSet":                                {"ds"},
	"apps/StatefulSet":                              {"sts"},
	"autoscaling/HorizontalPodAutoscaler":           {"hpa"},
	"batch/CronJob":                                 {"cj"},
	"certificates.k8s.io/CertificateSigningRequest": {"csr"},
	"events.k8s.io/Event":                           {"ev"},
	"networking.k8s.io/NetworkPolicy":               {"netpol"},
	"policy/PodDisruptionBudget":                    {"pdb"},
	"scheduling.k8s.io/PriorityClass":               {"pc"},
	"storage.k8s.io/StorageClass":                   {"sc"},
}

// Defaults returns KubeFed's ten default enabled types, sorted by name
// ("clusterroles.rbac.authorization.k8s.io", "configmaps", ...). The result
// is a new slice on every call.
func Defaults() []Type {
	out := make([]Type, len(defaults))
	for i, d := range defaults {
		out[i] = d.Type
	}
	sortByName(out)
	return out
}

// Default returns the default type called name ("<plural>.<group>", or
// "<plural>" for the core group), exactly as spelled.
func Default(name string) (Type, bool) {
	d, ok := defaultResource(name)
	return d.Type, ok
}

// DefaultNames returns the names of the default types, sorted.
func DefaultNames() []string {
	names := make([]string, len(defaults))
	for i, d := range defaults {
		names[i] = d.Name()
	}
	slices.Sort(names)
	return names
}

func defaultResource(name string) (Resource, bool) {
	i := slices.IndexFunc(defaults, func(d Resource) bool { return d.Name() == name })
	if i < 0 {
		return Resource{}, false
	}
	return defaults[i].clone(), true
}

// defaultFor returns the default type with t's group and kind.
func defaultFor(t Type) (Resource, bool) {
	i := slices.IndexFunc(defaults, func(d Resource) bool { return sameGroupKind(d.Type, t) })
	if i < 0 {
		return Resource{}, false
	}
	return defaults[i].clone(), true
}

func sameGroupKind(a, b Type) bool { return a.Group == b.Group && a.Kind == b.Kind }

func sortByName(ts []Type) {
	slices.SortFunc(ts, func(a, b Type) int { return strings.Compare(a.Name(), b.Name()) })
}
