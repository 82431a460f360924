package typeconfig

// installOrder is the order kinds are created in a member, after helm's
// InstallOrder (pkg/release/v1/util/kind_sorter.go): what others refer to
// comes first. Namespaces and CRDs are a phase of their own in apply;
// kinds not listed go last. Removal runs in the reverse order, and render
// prints in this order, so that its output applies as it is.
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

// InstallRank is kind's place in the install order; unknown kinds share
// the last place.
func InstallRank(kind string) int {
	if r, ok := kindRank[kind]; ok {
		return r
	}
	return len(installOrder)
}
