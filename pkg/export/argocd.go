package export

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
)

// ArgoCD says where the rendered tree is committed and how its
// Applications are named.
type ArgoCD struct {
	// Repo and Path are the Git repository and the tree's directory in it;
	// each member's directory is Path/<member>.
	Repo, Path string
	// Revision is the repository revision to sync.
	Revision string
	// Name is the ApplicationSet's name; each Application is
	// <Name>-<member>.
	Name string
	// Project and Namespace are Argo CD's project and its own namespace.
	Project, Namespace string
	// Waves, when set, are the federation's rollout waves in order: the
	// Applications are synced wave by wave (Argo CD's RollingSync).
	Waves []Wave
	// Retained are the objects whose spec.replicas is left to whoever
	// scales them (retainReplicas: true, RetainedReplicas).
	Retained []ObjectRef
}

// ObjectRef names one object of the tree, by group, kind, namespace and
// name, as Argo CD's ignoreDifferences entries do.
type ObjectRef struct {
	Group, Kind, Namespace, Name string
}

// RetainedReplicas are the objects of targets whose spec.replicas a member
// keeps (retainReplicas: true, an HPA scaling them): Argo CD is told to
// ignore the field after creating the object (ignoreDifferences with
// RespectIgnoreDifferences), as KubeFed writes it on create only. Sorted.
func RetainedReplicas(targets []render.Target) []ObjectRef {
	seen := map[ObjectRef]bool{}
	var out []ObjectRef
	for _, t := range targets {
		ref := ObjectRef{Group: t.Type.Group, Kind: t.Type.Kind, Namespace: t.Namespace(), Name: t.Name()}
		if t.RetainReplicas && !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	slices.SortFunc(out, func(a, b ObjectRef) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// Wave is one rollout wave: its members, and how many of them may sync at
// once (0: all).
type Wave struct {
	Name      string
	Clusters  []string
	MaxUpdate int
}

// WaveLabel on each Application names its member's rollout wave, which
// the ApplicationSet's RollingSync steps select.
const WaveLabel = "fedctl.io/wave"

// ApplicationSet is one Argo CD ApplicationSet whose list generator maps
// each member to its directory of the tree (render's --output-dir layout)
// and to the Argo CD cluster of the member's name. The Applications sync
// with server-side apply, so that they take over, field by field, the
// objects fedctl applied once fedctl has released them, and reconcile
// from then on (automated, self-healing, pruning what leaves the tree).
func ApplicationSet(a ArgoCD, members []string) map[string]any {
	wave := map[string]string{}
	for _, w := range a.Waves {
		for _, c := range w.Clusters {
			wave[c] = w.Name
		}
	}
	elements := make([]any, len(members))
	for i, m := range members {
		e := map[string]any{"cluster": m, "path": path.Join(a.Path, m)}
		if a.Waves != nil {
			e["wave"] = wave[m]
		}
		elements[i] = e
	}
	appSet := map[string]any{
		"apiVersion": "argoproj.io/v1alpha1",
		"kind":       "ApplicationSet",
		"metadata":   map[string]any{"name": a.Name, "namespace": a.Namespace},
		"spec": map[string]any{
			"goTemplate":        true,
			"goTemplateOptions": []any{"missingkey=error"},
			"generators":        []any{map[string]any{"list": map[string]any{"elements": elements}}},
			"template": map[string]any{
				"metadata": map[string]any{"name": a.Name + "-{{.cluster}}"},
				"spec": map[string]any{
					"project": a.Project,
					"source": map[string]any{
						"repoURL":        a.Repo,
						"targetRevision": a.Revision,
						"path":           "{{.path}}",
						// Each member's directory holds one directory per
						// namespace.
						"directory": map[string]any{"recurse": true},
					},
					"destination": map[string]any{"name": "{{.cluster}}"},
					"syncPolicy": map[string]any{
						// allowEmpty: a member whose last object left
						// the placement is pruned, not refused
						"automated":   map[string]any{"prune": true, "selfHeal": true, "allowEmpty": true},
						"syncOptions": []any{"ServerSideApply=true"},
					},
				},
			},
		},
	}
	if len(a.Retained) > 0 {
		app := appSet["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		var ignore []any
		for _, r := range a.Retained {
			entry := map[string]any{"group": r.Group, "kind": r.Kind, "name": r.Name, "jsonPointers": []any{"/spec/replicas"}}
			if r.Namespace != "" {
				entry["namespace"] = r.Namespace
			}
			ignore = append(ignore, entry)
		}
		app["ignoreDifferences"] = ignore
		sync := app["syncPolicy"].(map[string]any)
		sync["syncOptions"] = append(sync["syncOptions"].([]any), "RespectIgnoreDifferences=true")
	}
	if a.Waves != nil {
		spec := appSet["spec"].(map[string]any)
		spec["template"].(map[string]any)["metadata"].(map[string]any)["labels"] = map[string]any{WaveLabel: "{{.wave}}"}
		var steps []any
		for _, w := range a.Waves {
			step := map[string]any{"matchExpressions": []any{map[string]any{"key": WaveLabel, "operator": "In", "values": []any{w.Name}}}}
			if w.MaxUpdate > 0 {
				step["maxUpdate"] = w.MaxUpdate
			}
			steps = append(steps, step)
		}
		spec["strategy"] = map[string]any{"type": "RollingSync", "rollingSync": map[string]any{"steps": steps}}
	}
	return appSet
}

// WaveNotes say what of a rollout Argo CD's RollingSync does not do as
// apply --rollout does: it waits for each wave's Applications to be
// Healthy, with no soak, no failure budget and no timeout, and members in
// no wave are not synced by it.
func WaveNotes(waves []Wave, members []string, soak, timeout string, maxFailures int) []Note {
	where := FederationFile
	notes := []Note{{Where: where, Object: "rollout", Exact: true,
		Message: "the waves become the ApplicationSet's RollingSync steps (label " + WaveLabel + "): each waits until the wave's Applications are Healthy; Argo CD's progressive syncs must be enabled (the ApplicationSet controller's --enable-progressive-syncs)"}}
	if soak != "" {
		notes = append(notes, Note{Where: where, Object: "rollout", Message: "soak " + soak + " has no RollingSync equivalent: the next wave starts once the last is Healthy"})
	}
	if maxFailures > 0 {
		notes = append(notes, Note{Where: where, Object: "rollout", Message: fmt.Sprintf("maxFailures %d has no RollingSync equivalent: a wave waits for every Application", maxFailures)})
	}
	if timeout != "" {
		notes = append(notes, Note{Where: where, Object: "rollout", Exact: true, Message: "timeout " + timeout + " has no RollingSync equivalent: a wave waits as long as it takes"})
	}
	in := map[string]bool{}
	for _, w := range waves {
		for _, c := range w.Clusters {
			in[c] = true
		}
	}
	var outside []string
	for _, m := range members {
		if !in[m] {
			outside = append(outside, m)
		}
	}
	if len(outside) > 0 {
		notes = append(notes, Note{Where: where, Object: "rollout", Members: outside,
			Message: fmt.Sprintf("%v are in no wave: RollingSync leaves their Applications to be synced by hand", outside)})
	}
	return notes
}

// ArgoCDObject is the member object of t as the Argo CD tree holds it:
// without fedctl's markers, and for a federated object that says
// kubefed.io/orphan: "true", with Argo CD's sync option Delete=false,
// which keeps it when it leaves the tree (pruned) or the Application is
// deleted, as KubeFed keeps it when it is no longer wanted.
func ArgoCDObject(t render.Target) map[string]any {
	obj := Unmarked(t.Object)
	if t.Source != nil && t.Source.Annotations[federation.OrphanAnnotation] == "true" {
		meta, _ := obj["metadata"].(map[string]any)
		annotations, _ := meta["annotations"].(map[string]any)
		if annotations == nil {
			annotations = map[string]any{}
			meta["annotations"] = annotations
		}
		annotations[argoCDSyncOptions] = "Delete=false"
	}
	return obj
}

// argoCDSyncOptions is Argo CD's per-resource sync option annotation.
const argoCDSyncOptions = "argocd.argoproj.io/sync-options"

// ArgoCDNotes inform about what Argo CD keeps as fedctl rendered it today
// rather than deciding again: replica splits of ReplicaScheduling-
// Preferences are files, planned anew only when the tree is rendered again.
func ArgoCDNotes(set *federation.Set, targets []render.Target) []Note {
	bySource := map[*federation.Object][]render.Target{}
	for _, t := range targets {
		bySource[t.Source] = append(bySource[t.Source], t)
	}
	var notes []Note
	for _, o := range set.Objects {
		at := func(field string) string { return fmt.Sprintf("%s:%d", o.Pos.File(), o.Pos.Line(field)) }
		if o.Annotations[federation.OrphanAnnotation] == "true" {
			notes = append(notes, Note{Where: at("metadata.annotations"), Object: o.ID(), Exact: true,
				Message: fmt.Sprintf("%s: \"true\" becomes the member objects' annotation %s: Delete=false, which keeps them when pruned or when the Application is deleted", federation.OrphanAnnotation, argoCDSyncOptions)})
		}
		var retained, enforced []string
		secret := false
		for _, t := range bySource[o] {
			if t.RetainReplicas {
				retained = append(retained, t.Cluster)
			} else {
				enforced = append(enforced, t.Cluster)
			}
			secret = secret || t.Type.Group == "" && t.Type.Kind == "Secret"
		}
		switch {
		case len(retained) == 0:
		case len(enforced) == 0:
			notes = append(notes, Note{Where: at("spec.retainReplicas"), Object: o.ID(), Exact: true,
				Message: "retainReplicas: true becomes the Applications' ignoreDifferences of /spec/replicas with RespectIgnoreDifferences=true: written when the object is created, then left to whoever scales it"})
		default:
			// One ApplicationSet template: the field is ignored in every
			// member's Application, those whose replicas an override or
			// a plan sets included.
			notes = append(notes, Note{Where: at("spec.retainReplicas"), Object: o.ID(), Members: enforced,
				Message: fmt.Sprintf("retainReplicas: true becomes the Applications' ignoreDifferences of /spec/replicas, in every member: in %s, whose replicas an override or a plan sets, Argo CD writes them when it creates the object and then no longer enforces them", strings.Join(enforced, ", "))})
		}
		if secret {
			notes = append(notes, Note{Where: at(""), Object: o.ID(), Exact: true,
				Message: "its data is written in clear into the tree that Argo CD reads from git: keep it out of the repository (Sealed Secrets, External Secrets, or a Secret made in each member)"})
		}
	}
	for _, rsp := range set.RSPs {
		notes = append(notes, Note{Where: fmt.Sprintf("%s:%d", rsp.Pos.File(), rsp.Pos.Line("")), Object: rsp.ID(), Exact: true,
			Message: "the replica split is written as each member's count: it is planned again only when the tree is rendered again (fedctl convert or render --output-dir in the pipeline)"})
	}
	return append(notes, DNSNotes(set, "Argo CD")...)
}
