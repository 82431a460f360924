package propagate

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

// Labels and annotations of kubectl's ApplySets (KEP-3659), so that
// "kubectl apply --prune --applyset" and fedctl can inspect the same set.
const (
	// ApplySetIDLabel, on the parent, holds the set's ID.
	ApplySetIDLabel = federation.ApplySetIDLabel
	// The objects of the set carry federation.ApplySetPartOfLabel.
	// ApplySetToolingAnnotation, on the parent, names the tool that manages
	// the set as "name/version"; a tool leaves alone a set another manages.
	ApplySetToolingAnnotation = federation.ApplySetToolingAnnotation
	// ApplySetGroupKindsAnnotation, on the parent, lists the group-kinds of
	// the set's objects ("ConfigMap,Deployment.apps"), sorted, so that a
	// pruner knows which types to list.
	ApplySetGroupKindsAnnotation = "applyset.kubernetes.io/contains-group-kinds"
	// ApplySetNamespacesAnnotation, on the parent, lists the namespaces of
	// the set's objects other than the parent's own, sorted.
	ApplySetNamespacesAnnotation = "applyset.kubernetes.io/additional-namespaces"
	// ApplySetDNSContextAnnotation, on the parent, is fedctl's own: the
	// clusters where the set's DNSEndpoints are, comma-separated (see
	// ApplySet.DNSContexts), so that a later apply --prune of the set whose
	// input no longer names one of them (its Domain went with its records,
	// or moved) still prunes them there.
	ApplySetDNSContextAnnotation = "fedctl.io/dns-context"
)

// ApplySet names the parent object of an ApplySet in each member: a Secret
// (kubectl's default) or a ConfigMap, in a namespace.
type ApplySet struct {
	// Resource is "secrets" or "configmaps".
	Resource  string
	Name      string
	Namespace string
	// Tooling is the tooling annotation fedctl writes: "fedctl/VERSION".
	Tooling string
	// DNSContexts are clusters where the set's DNSEndpoints are, recorded
	// on the parent (ApplySetDNSContextAnnotation) on top of those it
	// records already; ForgetDNSContexts are clusters known to hold none
	// of them any more, taken off it. A cluster the parent records and
	// neither names stays recorded: the run did not learn otherwise (its
	// parent could not be read first, or a rollout's later wave).
	DNSContexts       []string
	ForgetDNSContexts []string
}

// dnsContextsOn is the value of ApplySetDNSContextAnnotation that a parent
// whose value is live gets: live's clusters, less those to forget, plus
// DNSContexts, sorted.
func (a ApplySet) dnsContextsOn(live string) string {
	return strings.Join(sets.List(splitList(live).Delete(a.ForgetDNSContexts...).Insert(a.DNSContexts...)), ",")
}

// ParseApplySet reads --applyset as kubectl does: NAME or secrets/NAME for
// a Secret, configmaps/NAME for a ConfigMap. The parent lives in namespace.
func ParseApplySet(value, namespace, tooling string) (ApplySet, error) {
	resource, name, found := strings.Cut(value, "/")
	if !found {
		resource, name = "secrets", value
	}
	switch resource {
	case "secrets", "secret", "configmaps", "configmap":
	default:
		return ApplySet{}, fmt.Errorf("--applyset %q: the parent must be secrets/NAME (the default) or configmaps/NAME", value)
	}
	if name == "" || strings.Contains(name, "/") {
		return ApplySet{}, fmt.Errorf("--applyset %q: want NAME, secrets/NAME or configmaps/NAME", value)
	}
	if namespace == "" {
		return ApplySet{}, fmt.Errorf("--applyset %q: the parent needs a namespace", value)
	}
	return ApplySet{Resource: strings.TrimSuffix(resource, "s") + "s", Name: name, Namespace: namespace, Tooling: tooling}, nil
}

// Kind is the parent's kind.
func (a ApplySet) Kind() string {
	if a.Resource == "configmaps" {
		return "ConfigMap"
	}
	return "Secret"
}

func (a ApplySet) mapping() members.Mapping {
	return members.Mapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: a.Resource}, Namespaced: true}
}

// ID is the set's ID as kubectl computes it: "applyset-" + the unpadded
// URL-safe base64 of the sha256 of "NAME.NAMESPACE.KIND.GROUP" + "-v1"
// (KEP-3659, "ApplySet identification"). The core group is empty, so a
// Secret "web" in "default" hashes "web.default.Secret.".
func (a ApplySet) ID() string {
	sum := sha256.Sum256([]byte(strings.Join([]string{a.Name, a.Namespace, a.Kind(), ""}, ".")))
	return "applyset-" + base64.RawURLEncoding.EncodeToString(sum[:]) + "-v1"
}

// Ref is "Secret NAMESPACE/NAME", for messages.
func (a ApplySet) Ref() string { return a.Kind() + " " + a.Namespace + "/" + a.Name }

// groupKindsValue is the contains-group-kinds value of gks: each as
// GroupKind.String ("Deployment.apps", "ConfigMap"), sorted, comma-separated.
func groupKindsValue(gks sets.Set[schema.GroupKind]) string {
	var names []string
	for gk := range gks {
		names = append(names, gk.String())
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// parseGroupKinds reads a contains-group-kinds value.
func parseGroupKinds(value string) sets.Set[schema.GroupKind] {
	gks := sets.New[schema.GroupKind]()
	for _, s := range strings.Split(value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			gks.Insert(schema.ParseGroupKind(s))
		}
	}
	return gks
}

func splitList(value string) sets.Set[string] {
	out := sets.New[string]()
	for _, s := range strings.Split(value, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out.Insert(s)
		}
	}
	return out
}

// dnsContexts is the value of ApplySetDNSContextAnnotation the parent gets,
// and the one it has ("" when it has none).
func (st *applySetState) dnsContexts() (want, live string) {
	if st.live != nil {
		live = st.live.GetAnnotations()[ApplySetDNSContextAnnotation]
	}
	return st.set.dnsContextsOn(live), live
}

// applySetState is the parent of the ApplySet in one member.
type applySetState struct {
	set  ApplySet
	live *unstructured.Unstructured // nil when it does not exist yet
	// groupKinds and namespaces are what the live parent lists.
	groupKinds sets.Set[schema.GroupKind]
	namespaces sets.Set[string]
}

// readApplySet reads the parent in the member. A parent that belongs to
// another set or another tool fails the member: fedctl would otherwise
// prune objects it does not own.
func (s *memberSync) readApplySet(ctx context.Context) error {
	set := *s.in.ApplySet
	st := &applySetState{set: set, groupKinds: sets.New[schema.GroupKind](), namespaces: sets.New[string]()}
	s.applySet = st
	live, err := s.client.Get(ctx, set.mapping(), set.Namespace, set.Name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("read the ApplySet parent %s: %w", set.Ref(), members.RequestErrorIn(ctx, err))
	}
	if id := live.GetLabels()[ApplySetIDLabel]; id != set.ID() {
		if id == "" {
			return fmt.Errorf("%s exists and is not an ApplySet parent (no %s label); choose another --applyset name", set.Ref(), ApplySetIDLabel)
		}
		return fmt.Errorf("%s is the parent of ApplySet %s, not %s; choose another --applyset name", set.Ref(), id, set.ID())
	}
	switch tool := live.GetAnnotations()[ApplySetToolingAnnotation]; {
	case tool == "":
		// as kubectl refuses it: nothing says which tool's set it is
		return fmt.Errorf("%s is an ApplySet parent without the %s annotation, so no tool is known to manage it; fedctl does not prune a set it cannot tell is its own (add %s: %s<version> if it is fedctl's)",
			set.Ref(), ApplySetToolingAnnotation, ApplySetToolingAnnotation, federation.ApplySetTooling)
	case !strings.HasPrefix(tool, federation.ApplySetTooling):
		return fmt.Errorf("%s is managed by %s, not fedctl; fedctl does not prune a set another tool manages", set.Ref(), tool)
	}
	st.live = live
	st.groupKinds = parseGroupKinds(live.GetAnnotations()[ApplySetGroupKindsAnnotation])
	st.namespaces = splitList(live.GetAnnotations()[ApplySetNamespacesAnnotation])
	return nil
}

// applySetParent is the parent as fedctl applies it.
func (s *memberSync) applySetParent(gks sets.Set[schema.GroupKind], namespaces sets.Set[string]) *unstructured.Unstructured {
	set := s.applySet.set
	parent := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": set.Kind()}}
	parent.SetName(set.Name)
	parent.SetNamespace(set.Namespace)
	parent.SetLabels(map[string]string{ApplySetIDLabel: set.ID()})
	annotations := map[string]string{
		ApplySetToolingAnnotation:    set.Tooling,
		ApplySetGroupKindsAnnotation: groupKindsValue(gks),
		ApplySetNamespacesAnnotation: strings.Join(sets.List(namespaces.Clone().Delete(set.Namespace)), ","),
	}
	// an empty value rather than none once it had some: fedctl then owns
	// it, whichever field manager wrote it before
	if v, live := s.applySet.dnsContexts(); v != "" || live != "" {
		annotations[ApplySetDNSContextAnnotation] = v
	}
	parent.SetAnnotations(annotations)
	return parent
}

// writeApplySetObject brings the parent's labels and annotations to the
// given group-kinds and namespaces, and returns what the API server made of
// it; nil, and nothing sent, when they are already there. The parent is
// fedctl's alone, so it is applied with force.
func (s *memberSync) writeApplySetObject(ctx context.Context, gks sets.Set[schema.GroupKind], namespaces sets.Set[string]) (*unstructured.Unstructured, error) {
	st := s.applySet
	parent := s.applySetParent(gks, namespaces)
	if st.live != nil {
		same := st.live.GetLabels()[ApplySetIDLabel] == st.set.ID()
		for k, v := range parent.GetAnnotations() {
			if st.live.GetAnnotations()[k] != v {
				same = false
			}
		}
		if same {
			return nil, nil
		}
	}
	wo := s.writeOptions()
	wo.Force = true
	applied, err := s.client.Apply(ctx, st.set.mapping(), parent, wo)
	if err != nil {
		return nil, err
	}
	if !s.mode.dryRun {
		st.live = applied
	}
	return applied, nil
}

// inputGroupKinds are the group-kinds and namespaces of what the member
// gets in this run.
func inputGroupKinds(items []*item) (sets.Set[schema.GroupKind], sets.Set[string]) {
	gks, namespaces := sets.New[schema.GroupKind](), sets.New[string]()
	for _, it := range items {
		gks.Insert(it.gvk.GroupKind())
		if it.result.Namespace != "" {
			namespaces.Insert(it.result.Namespace)
		}
	}
	return gks, namespaces
}

// errParentNamespace says the parent's namespace does not exist yet.
var errParentNamespace = errors.New("the ApplySet parent's namespace does not exist")

// openApplySet records, before anything is written, every group-kind and
// namespace the set may hold after this run (what the parent listed plus
// the input's), as kubectl does: a run cut short still leaves a parent that
// leads the next run to every object it labelled. When the parent's
// namespace is created by this run, it returns errParentNamespace and is
// called again once the namespaces exist.
func (s *memberSync) openApplySet(ctx context.Context, items []*item) error {
	gks, namespaces := inputGroupKinds(items)
	_, err := s.writeApplySetObject(ctx, gks.Union(s.applySet.groupKinds), namespaces.Union(s.applySet.namespaces))
	if members.NamespaceNotFound(err) {
		return errParentNamespace
	}
	if err != nil {
		return fmt.Errorf("write the ApplySet parent %s: %w", s.applySet.set.Ref(), members.RequestErrorIn(ctx, err))
	}
	return nil
}

// closeApplySet leaves the parent listing exactly the group-kinds and
// namespaces of the objects the set still holds: what the member got in
// this run and whatever in kept (removals, render failures) is not gone. In compare mode the parent's
// change is kept like any object's.
func (s *memberSync) closeApplySet(ctx context.Context, items []*item, kept []ObjectResult) error {
	if ctx.Err() != nil {
		return nil // the parent still lists every kind the set may hold
	}
	gks, namespaces := inputGroupKinds(items)
	if s.unreadReason() != "" {
		// What could not be read may still be in the set: a failure never
		// narrows what the parent lists, or later prunes would miss it.
		gks = gks.Union(s.applySet.groupKinds)
		namespaces = namespaces.Union(s.applySet.namespaces)
	}
	gone := map[string]bool{}
	for _, r := range kept {
		gk := schema.FromAPIVersionAndKind(r.APIVersion, r.Kind).GroupKind()
		if r.Action == Deleted || r.Action == Orphaned || r.Action == Released {
			gone[gk.String()+"/"+r.Namespace+"/"+r.Name] = true
			continue
		}
		gks.Insert(gk)
		if r.Namespace != "" {
			namespaces.Insert(r.Namespace)
		}
	}
	// And every object of the set this run left where it was without a
	// result of its own: one a cordoned member keeps though it is no
	// longer placed there, one whose FederatedNamespace left the input.
	// Dropped from the parent, it would never be listed, nor pruned.
	for _, obj := range s.live {
		gk := obj.GroupVersionKind().GroupKind()
		if obj.GetLabels()[federation.ApplySetPartOfLabel] != s.applySet.set.ID() || gone[gk.String()+"/"+obj.GetNamespace()+"/"+obj.GetName()] {
			continue
		}
		gks.Insert(gk)
		if obj.GetNamespace() != "" {
			namespaces.Insert(obj.GetNamespace())
		}
	}
	before := s.applySet.live
	applied, err := s.writeApplySetObject(ctx, gks, namespaces)
	set := s.applySet.set
	res := ObjectResult{APIVersion: "v1", Kind: set.Kind(), Namespace: set.Namespace, Name: set.Name}
	switch {
	case err != nil && s.mode.dryRun && members.NamespaceNotFound(err):
		// its namespace is new: the real run creates it
		s.compared(res, nil, s.applySetParent(gks, namespaces))
		return nil
	case err != nil:
		return fmt.Errorf("write the ApplySet parent %s: %w", set.Ref(), members.RequestErrorIn(ctx, err))
	case applied != nil:
		s.compared(res, before, applied)
	case before != nil:
		s.compared(res, before, before)
	}
	return nil
}
