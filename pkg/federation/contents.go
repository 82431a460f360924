package federation

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// contentsSkipped are never federated with a namespace's contents, as in
// kubefedctl: they are derived, event streams, or KubeFed bookkeeping.
var contentsSkipped = []string{"endpoints", "events", "events.events.k8s.io", "propagatedversions.core.kubefed.io", "endpointslices.discovery.k8s.io"}

// contentsSkippedGroups are whole groups left out: extensions only serves
// old copies of types served elsewhere.
var contentsSkippedGroups = []string{"extensions"}

// ContentsTypes are the namespaced types whose objects "federate --contents"
// federates, each once at the version the server prefers: listable, not
// subresources, not kubefedctl's skipped resources, not federated types
// themselves, and not named by skip (a plural, kind, short name,
// <plural>.<group> or a whole group).
func ContentsTypes(lists []*metav1.APIResourceList, skip []string) []typeconfig.Type {
	var out []typeconfig.Type
	seen := map[string]bool{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			t := typeconfig.Type{Group: gv.Group, Version: gv.Version, Kind: r.Kind, Plural: r.Name, Scope: typeconfig.Namespaced}
			switch {
			case !r.Namespaced, strings.Contains(r.Name, "/"), !slices.Contains(r.Verbs, "list"),
				slices.Contains(contentsSkipped, t.Name()), slices.Contains(contentsSkippedGroups, gv.Group),
				(gv.Group == TypesGroup || gv.Group == LegacyTypesGroup) && strings.HasPrefix(r.Kind, KindPrefix),
				seen[t.Name()], skipped(t, r, skip):
				continue
			}
			seen[t.Name()] = true
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b typeconfig.Type) int { return strings.Compare(a.Name(), b.Name()) })
	return out
}

func skipped(t typeconfig.Type, r metav1.APIResource, skip []string) bool {
	for _, s := range skip {
		s = strings.ToLower(s)
		if s == t.Plural || s == t.Name() || s == strings.ToLower(t.Kind) || s == r.SingularName || (t.Group != "" && s == t.Group) ||
			slices.ContainsFunc(r.ShortNames, func(n string) bool { return strings.ToLower(n) == s }) {
			return true
		}
	}
	return false
}

// SkipContent says why a namespace's object is left out of "federate
// --contents", or "" to federate it. Beyond kubefedctl's rule (names that
// are not DNS-1123 subdomains), fedctl leaves out what a member creates on
// its own: objects with a controller owner (a Deployment's ReplicaSets and
// Pods), the namespace's default ServiceAccount and its kube-root-ca.crt
// ConfigMap, which federating would only fight over; and an ApplySet's
// parent (the Secret "apply --prune --applyset" keeps): it is one member's
// bookkeeping, and copying its ID label to the others would make them
// parents of a set they do not hold.
func SkipContent(obj *unstructured.Unstructured) string {
	if id := obj.GetLabels()[ApplySetIDLabel]; id != "" {
		return "it is the parent of ApplySet " + id + ", one member's bookkeeping"
	}
	if t, _, _ := unstructured.NestedString(obj.Object, "type"); obj.GetKind() == "Secret" && t == "kubernetes.io/service-account-token" {
		// Not the member's own: one a user made keeps its namespace.
		return "it is a service account token, one member's credential (each member's token controller fills its own)"
	}
	return MemberMade(obj)
}

// NamespaceMade says whether obj is something its namespace makes by
// itself: controlled by a namespaced object (which is in the same
// namespace, or gone and its dependents with it: a Deployment just deleted
// leaves its ReplicaSets to the garbage collector), or the default
// ServiceAccount and kube-root-ca.crt every namespace gets. clusterScoped
// says whether an owner's kind is cluster-scoped; its error (the member
// could not say) is NamespaceMade's, as not knowing is no ground to delete.
// The rest is someone's: unlike MemberMade, a name federate could not copy
// (a RoleBinding "team:admins") or a controller outside any namespace does
// not make an object the namespace's own, so the namespace guard keeps the
// namespace for it.
func NamespaceMade(obj *unstructured.Unstructured, clusterScoped func(schema.GroupKind) (bool, error)) (bool, error) {
	if c := metav1.GetControllerOf(obj); c != nil {
		cluster, err := clusterScoped(schema.FromAPIVersionAndKind(c.APIVersion, c.Kind).GroupKind())
		return !cluster, err
	}
	return everyNamespaceHas(obj), nil
}

// everyNamespaceHas says obj is one of what every namespace gets: its
// default ServiceAccount and kube-root-ca.crt ConfigMap.
func everyNamespaceHas(obj *unstructured.Unstructured) bool {
	return obj.GetKind() == "ServiceAccount" && obj.GetName() == "default" ||
		obj.GetKind() == "ConfigMap" && obj.GetName() == "kube-root-ca.crt"
}

// MemberMade says why obj is something a member makes on its own (or can
// never be federated), or "" when it is not: what SkipContent leaves out
// besides ApplySet parents and service account tokens. The namespace
// guard asks NamespaceMade instead, which counts less as the member's.
func MemberMade(obj *unstructured.Unstructured) string {
	switch {
	case len(validation.IsDNS1123Subdomain(obj.GetName())) > 0:
		return "its name is not a DNS-1123 subdomain"
	case metav1.GetControllerOf(obj) != nil:
		return "it is owned by " + metav1.GetControllerOf(obj).Kind + " " + metav1.GetControllerOf(obj).Name
	case everyNamespaceHas(obj):
		return "every namespace gets its own"
	}
	return ""
}
