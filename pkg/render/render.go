package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/overrides"
	"github.com/fedctl/fedctl/pkg/parallel"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// SystemNamespace says whether a Namespace is never propagated as an
// object, as in KubeFed (kube-system, kube-public, default); its
// FederatedNamespace still places the objects inside it.
func SystemNamespace(name string) bool {
	return name == "kube-system" || name == "kube-public" || name == "default"
}

// replicasPath is the override an RSP writes for every scheduled member.
const replicasPath = "/spec/replicas"

// Target is one member object: what one member cluster should hold for one
// federated object.
type Target struct {
	Cluster string
	Type    typeconfig.Type
	// Object is read-only. Member objects share what they have in common:
	// the members a federated object's overrides leave alone share one
	// object, the others share every part their overrides did not change,
	// and all share the template's unchanged parts with the input. Copy it
	// (runtime.DeepCopyJSON) before changing it.
	Object map[string]any
	Source *federation.Object
	// RetainReplicas says that the member keeps the live spec.replicas of
	// an existing object: the federated object asks so (retainReplicas)
	// and no override for this member sets spec.replicas. KubeFed applies
	// overrides after it retains fields, so an override, and the count a
	// ReplicaSchedulingPreference plans (an override too), wins over the
	// retained value (pkg/controller/sync/dispatch/retain.go, kubefed#1278).
	RetainReplicas bool
}

// Namespace is the member object's namespace ("" when cluster-scoped).
func (t Target) Namespace() string {
	if !t.Type.Namespaced() {
		return ""
	}
	return t.Source.Namespace
}

// Name is the member object's name.
func (t Target) Name() string { return t.Source.Name }

// DefinedKind is the group and kind of the custom resources a
// CustomResourceDefinition target defines; ok is false for any other
// target.
func (t Target) DefinedKind() (group, kind string, ok bool) {
	if t.Type.Group != "apiextensions.k8s.io" || t.Type.Kind != "CustomResourceDefinition" {
		return "", "", false
	}
	spec, _ := t.Object["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	group, _ = spec["group"].(string)
	kind, _ = names["kind"].(string)
	return group, kind, true
}

// Placed records where one federated object goes.
type Placed struct {
	Object *federation.Object
	Type   typeconfig.Type
	// Clusters are the members the object is placed in, sorted; rendering
	// may still have failed for some (see Result.Errors).
	Clusters []string
	// NamespaceNotFederated says the object is placed nowhere because the
	// input has no FederatedNamespace for its namespace. KubeFed then
	// leaves the member objects alone, and so does apply: what is missing
	// may just be a file left out of -f.
	NamespaceNotFederated bool
}

// Result is the output of ForClusters.
type Result struct {
	// Targets are sorted by cluster, install order (Namespaces and CRDs
	// first; typeconfig.InstallRank), group, kind, namespace and name.
	Targets []Target
	// Placed lists every federated object with its members, in input order.
	Placed []Placed
	// Warnings do not fail the render.
	Warnings []*manifest.Error
	// Errors are per object (failing every member) or per member; see
	// TargetError.
	Errors []error
	// Namespace, when set, holds every namespaced target: the federation
	// is scoped to it, so members are read in it alone (a user may have
	// rights there only).
	Namespace string
}

// Err joins the errors.
func (r *Result) Err() error { return errors.Join(r.Errors...) }

// InputErr joins the errors that fail a federated object for every member
// (Cluster empty): the input itself is wrong, so commands that write to
// members send nothing. Errors for one member fail that member's object
// only and are left to the commands' per-member reports.
func (r *Result) InputErr() error {
	var errs []error
	for _, err := range r.Errors {
		var te *TargetError
		if errors.As(err, &te) && te.Cluster != "" {
			continue
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// TargetError is a failure to render one federated object, for one member
// (Cluster set) or for all of them (Cluster empty).
type TargetError struct {
	Cluster string
	Object  *federation.Object
	Err     error
}

func (e *TargetError) Error() string {
	if e.Cluster == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("cluster %s: %v", e.Cluster, e.Err)
}

func (e *TargetError) Unwrap() error { return e.Err }

// Input is what ForClusters renders.
type Input struct {
	Set   *federation.Set
	Types federation.Types
	// Members are the member clusters with their labels.
	Members []placement.Cluster
	// Only, when not empty, limits the output to these members. Placement
	// and replica plans are computed over all members regardless, so that
	// the objects for a member are the same whichever members are shown.
	Only []string
	// Live, when set, makes replica plans from the members' live state.
	Live *Live
}

// objectsPerWorker keeps small inputs on one goroutine.
const objectsPerWorker = 16

// ForClusters renders every federated object of in.Set for every member it
// is placed in. Objects are rendered on all CPUs, each into its own part of
// the result, and the parts are joined in input order; in.Types is only
// used from the calling goroutine.
func ForClusters(in Input) *Result {
	res := &Result{}
	idx := IndexOf(in.Set, in.Set.Namespaces(), in.Members)
	types := map[string]enabledType{}
	for _, o := range in.Set.Objects {
		if _, ok := types[o.Kind]; !ok {
			t, enabled := in.Types.ByFederatedKind(o.Kind)
			types[o.Kind] = enabledType{t, enabled}
		}
	}
	effective := schedule(in, idx, res)
	parts := make([]Result, len(in.Set.Objects))
	parallel.For(len(in.Set.Objects), objectsPerWorker, func(i int) {
		o := in.Set.Objects[i]
		eff := effective[o]
		if eff == nil {
			eff = o
		}
		renderObject(in, &parts[i], o, eff, types[o.Kind], idx)
	})
	n := 0
	for i := range parts {
		n += len(parts[i].Targets)
	}
	if n > 0 {
		res.Targets = make([]Target, 0, n)
	}
	for i := range parts {
		res.Placed = append(res.Placed, parts[i].Placed...)
		res.Warnings = append(res.Warnings, parts[i].Warnings...)
		res.Errors = append(res.Errors, parts[i].Errors...)
		res.Targets = append(res.Targets, parts[i].Targets...)
	}
	slices.SortFunc(res.Targets, compareTargets)
	return res
}

// enabledType is what Types.ByFederatedKind says of a kind.
type enabledType struct {
	t       typeconfig.Type
	enabled bool
}

// Index is what placing one object needs to know of the others and of
// the members, worked out once per run: by render, and by explain to show
// what render decides.
type Index struct {
	// Namespaces are the FederatedNamespaces by name.
	Namespaces map[string]*federation.Object
	// Migrations says whether any member has a migration (fedctl
	// migrate). Without one, the usual case, placement is KubeFed's alone
	// and the migration steps are skipped.
	Migrations bool
	// MigratedTo are, by namespace, the members that fedctl migrate
	// sends objects of the namespace to, beyond its own placement.
	MigratedTo map[string][]string
}

// IndexOf indexes set for members, with namespaces as its
// FederatedNamespaces (set.Namespaces(), or those of enabled types).
func IndexOf(set *federation.Set, namespaces map[string]*federation.Object, members []placement.Cluster) Index {
	idx := Index{Namespaces: namespaces, Migrations: placement.HasMigrations(members)}
	if idx.Migrations {
		idx.MigratedTo = namespaceDestinations(set, namespaces, members)
	}
	return idx
}

// namespaceDestinations are, by namespace, the members migrations (fedctl
// migrate) send objects in it to from members where its FederatedNamespace
// is placed: the Namespace goes there too.
func namespaceDestinations(set *federation.Set, namespaces map[string]*federation.Object, members []placement.Cluster) map[string][]string {
	objLabels := map[string][]map[string]string{}
	for _, o := range set.Objects {
		if !o.IsNamespace() && o.Namespace != "" {
			objLabels[o.Namespace] = append(objLabels[o.Namespace], o.Labels)
		}
	}
	out := map[string][]string{}
	for name, ns := range namespaces {
		sel, err := placement.Select(ns.Spec.Placement, members)
		if err != nil {
			continue // rendering the namespace reports it
		}
		if dest := placement.NamespaceDestinations(sel.Clusters, append(objLabels[name], ns.Labels), members); len(dest) > 0 {
			out[name] = dest
		}
	}
	return out
}

func renderObject(in Input, res *Result, o, eff *federation.Object, et enabledType, idx Index) {
	t, ok := et.t, et.enabled
	if !ok { // Decode checked this; a caller that skipped Decode gets an error
		res.Errors = append(res.Errors, &TargetError{Object: o, Err: o.Errorf("kind", "%s is not enabled", o.Kind)})
		return
	}
	clusters, nsMissing, err := selectClusters(in, res, o, eff, t, idx)
	overridesErr := overrides.Validate(eff.Spec.Overrides)
	if err != nil {
		res.fail("", o, errors.Join(err, overridesErr)) // every problem of a failing object, at once
		return
	}
	if overridesErr != nil {
		if len(clusters) > 0 {
			res.fail("", o, overridesErr)
			return
		}
		// KubeFed reads the overrides of an object as it propagates it to
		// a member (and its RSP's): one placed nowhere is not refused for
		// them, which would stop the whole run here. Said, all the same.
		for _, e := range positioned(o, overridesErr) {
			var me *manifest.Error
			if errors.As(e, &me) {
				w := *me
				w.Err = fmt.Errorf("%w (placed in no member, the overrides are not used now; they will be refused once it is placed)", me.Err)
				res.Warnings = append(res.Warnings, &w)
			}
		}
	}
	res.Placed = append(res.Placed, Placed{Object: o, Type: t, Clusters: clusters, NamespaceNotFederated: nsMissing})
	if o.Rules.PlacementOnly {
		return
	}
	if o.IsNamespace() && SystemNamespace(o.Name) {
		if len(clusters) > 0 {
			res.Warnings = append(res.Warnings, o.Errorf("", "namespace %s is a system namespace and is never propagated; its placement still applies to the objects in it", o.Name))
		}
		return
	}
	base := BaseObject(o, t)
	if dropped := droppedMetadata(o); dropped != "" {
		res.Warnings = append(res.Warnings, o.Errorf("spec.template.metadata", "%s of the template are not propagated (as in KubeFed); use overrides to set them per cluster", dropped))
	}
	marked := markedCopy(base, o)
	variants := map[string]map[string]any{}
	for _, c := range clusters {
		if len(in.Only) > 0 && !slices.Contains(in.Only, c) {
			continue
		}
		if err := eff.MemberErrors[c]; err != nil { // eff: a preference may fail a member (WithUnread)
			res.fail(c, o, err)
			continue
		}
		m := member(in.Members, c)
		obj, err := forCluster(base, marked, variants, m, eff.Spec.Overrides, o)
		if err != nil {
			res.fail(c, o, err)
			continue
		}
		res.Targets = append(res.Targets, Target{Cluster: c, Type: t, Object: obj, Source: o,
			RetainReplicas: retains(o) && !overridesReplicas(m, eff.Spec.Overrides)})
	}
}

// retains says whether o asks members to keep their live replica counts.
func retains(o *federation.Object) bool {
	rr := o.Spec.RetainReplicas
	return rr != nil && *rr
}

// member is the member named c with its labels, which overrides with a
// clusterSelector select by.
func member(members []placement.Cluster, c string) overrides.Member {
	for _, m := range members {
		if m.Name == c {
			return overrides.Member{Name: c, Labels: m.Labels}
		}
	}
	return overrides.Member{Name: c}
}

// overridesReplicas says whether an override for m sets /spec/replicas,
// or a path that holds it.
func overridesReplicas(m overrides.Member, ovs []federation.ClusterOverrides) bool {
	for _, entry := range ovs {
		if !overrides.Matches(entry, m) {
			continue
		}
		for _, op := range entry.ClusterOverrides {
			if op.Path == replicasPath || op.Path == "" || strings.HasPrefix(replicasPath, op.Path+"/") {
				return true
			}
		}
	}
	return false
}

// selectClusters applies placement, then for namespaced objects the
// placement of the FederatedNamespace of their namespace; nsMissing says
// there is none. Migrations (fedctl migrate) apply last; a replica plan
// (eff not o) has applied them already.
func selectClusters(in Input, res *Result, o, eff *federation.Object, t typeconfig.Type, idx Index) (clusters []string, nsMissing bool, err error) {
	sel, err := placement.Select(eff.Spec.Placement, in.Members)
	if err != nil {
		return nil, false, err
	}
	if len(sel.Unknown) > 0 {
		res.Warnings = append(res.Warnings, o.Errorf("spec.placement.clusters", "not members, ignored: %s", strings.Join(sel.Unknown, ", ")))
	}
	clusters = sel.Clusters
	scheduled := eff != o
	migrated := func(clusters []string) []string {
		if scheduled || !idx.Migrations {
			return clusters
		}
		out, _ := placement.Migrated(clusters, o.Labels, in.Members)
		return out
	}
	if o.IsNamespace() {
		if dest := idx.MigratedTo[o.Name]; len(dest) > 0 {
			clusters = placement.Union(clusters, dest)
		}
		return clusters, false, nil
	}
	if !t.Namespaced() {
		return migrated(clusters), false, nil
	}
	ns, ok := idx.Namespaces[o.Namespace]
	if !ok && o.Rules.NamespaceOptional {
		return migrated(clusters), false, nil
	}
	if !ok {
		if len(clusters) > 0 {
			res.Warnings = append(res.Warnings, o.Errorf("metadata.namespace", "NamespaceNotFederated: no FederatedNamespace %s in the input, so the object is placed nowhere", o.Namespace))
		}
		return nil, true, nil
	}
	nsSel, err := placement.Select(ns.Spec.Placement, in.Members)
	if err != nil {
		return nil, false, o.Errorf("metadata.namespace", "placement of FederatedNamespace %s: %v", o.Namespace, err)
	}
	nsClusters := nsSel.Clusters
	if scheduled && idx.Migrations {
		// The plan moved replicas to where migrations send them, which
		// the Namespace follows.
		nsClusters = placement.Union(nsClusters, placement.NamespaceDestinations(nsClusters, []map[string]string{o.Labels}, in.Members))
	}
	return migrated(placement.Intersect(clusters, nsClusters)), false, nil
}

// fail records err, one TargetError per problem it holds, for cluster ("":
// every cluster) and object o, each with o's file and line.
func (r *Result) fail(cluster string, o *federation.Object, err error) {
	for _, e := range positioned(o, err) {
		r.Errors = append(r.Errors, &TargetError{Cluster: cluster, Object: o, Err: e})
	}
}

// positioned attaches the object's file and line to each problem in err,
// at the field it names when it names one.
func positioned(o *federation.Object, err error) []error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		var me *manifest.Error
		if errors.As(e, &me) {
			out = append(out, e) // positioned already
			continue
		}
		var ofe *overrides.FieldError
		var pfe *placement.FieldError
		var ae *overrides.ApplyError
		switch {
		case errors.As(e, &ae): // the cluster is the TargetError's to name
			out = append(out, o.Errorf(ae.Field, "%s %s: %v", ae.Op, ae.Path, ae.Err))
			continue
		case errors.As(e, &ofe):
			out = append(out, o.Errorf(ofe.Field, "%v", ofe.Err))
			continue
		case errors.As(e, &pfe):
			out = append(out, o.Errorf(pfe.Field, "%v", pfe.Err))
			continue
		}
		out = append(out, o.Errorf("", "%w", e)) // %w: UnreadStateError stays known
	}
	return out
}

func compareTargets(a, b Target) int {
	return cmpChain(
		strings.Compare(a.Cluster, b.Cluster),
		typeconfig.InstallRank(a.Type.Kind)-typeconfig.InstallRank(b.Type.Kind),
		strings.Compare(a.Type.Group, b.Type.Group),
		strings.Compare(a.Type.Kind, b.Type.Kind),
		strings.Compare(a.Namespace(), b.Namespace()),
		strings.Compare(a.Name(), b.Name()),
	)
}

func cmpChain(results ...int) int {
	for _, r := range results {
		if r != 0 {
			return r
		}
	}
	return 0
}

// Replicas are the spec.replicas of each member object that has them, by
// federated object (its ID, so that two renders of one input compare) and
// member.
func (r *Result) Replicas() map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, t := range r.Targets {
		spec, _ := t.Object["spec"].(map[string]any)
		n, ok := spec["replicas"].(int64)
		if !ok {
			continue
		}
		key := t.Source.ID()
		if out[key] == nil {
			out[key] = map[string]int64{}
		}
		out[key][t.Cluster] = n
	}
	return out
}
