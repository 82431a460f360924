package propagate

// installOrder is the order kinds are created in a member, after helm's
// InstallOrder (pkg/release/v1/util/kind_sorter.go): what others refer to
// comes first. Namespaces and CRDs are a phase of their own (see sync);
// kinds not listed go last. Removal runs in the reverse order.
var installOrder = []string{
	"Namespace",
	"CustomResourceDefinition",
	"NetworkPolicy",
	"ResourceQuota",
	"LimitRange",
	"PodSecurityPolicy",
	"PodDisruptionBudget",
	"ServiceAccount",
	"Secret",
	"ConfigMap",
	"StorageClass",
	"PersistentVolume",
	"PersistentVolumeClaim",
	"ClusterRole",
	"ClusterRoleBinding",
	"Role",
	"RoleBinding",
	"Service",
	"DaemonSet",
	"Pod",
	"ReplicationController",
	"ReplicaSet",
	"Deployment",
	"HorizontalPodAutoscaler",
	"StatefulSet",
	"Job",
	"CronJob",
	"IngressClass",
	"Ingress",
	"APIService",
	"MutatingWebhookConfiguration",
	"ValidatingWebhookConfiguration",
}

var kindRank = func() map[string]int {
	m := make(map[string]int, len(installOrder))
	for i, k := range installOrder {
		m[k] = i
	}
	return m
}()

// rank is kind's place in installOrder; unknown kinds share the last place.
func rank(kind string) int {
	if r, ok := kindRank[kind]; ok {
		return r
	}
	return len(installOrder)
}

// firstPhase says whether kind is created before everything else: the
// Namespaces the other objects live in and the CRDs that define their types.
func firstPhase(kind string) bool {
	return kind == "Namespace" || kind == "CustomResourceDefinition"
}
