package propagate

import (
	"encoding/json"
	"io"
	"strings"
	"time"

	"github.com/fedctl/fedctl/pkg/parallel"
)

// Action is what happened to one member object.
type Action string

// Actions, as reported per object.
const (
	// Created: the object did not exist and was applied.
	Created Action = "created"
	// Configured: the object existed and was applied again (or adopted).
	Configured Action = "configured"
	// Unchanged: what fedctl last applied is what it would apply now and
	// nobody changed the object since; nothing was sent.
	Unchanged Action = "unchanged"
	// Deleted: the object is no longer placed in the member and was deleted.
	Deleted Action = "deleted"
	// Orphaned: the object is no longer placed in the member but its
	// federated object says kubefed.io/orphan: "true"; fedctl's markers were
	// removed and it keeps running.
	Orphaned Action = "orphaned"
	// Released: fedctl release handed the object over; fedctl's markers
	// and field ownership were removed and nothing else changed.
	Released Action = "released"
	// Skipped: the object carries kubefed.io/managed: "false" and was not
	// touched, or cannot be checked in a dry run (see Reason).
	Skipped Action = "skipped"
	// Planned: --dry-run=client; the object would be applied.
	Planned Action = "planned"
	// Failed: see Error.
	Failed Action = "failed"
)

// ActionOrder is the order of the counts in a summary line.
var ActionOrder = []Action{Created, Configured, Unchanged, Deleted, Orphaned, Released, Skipped, Planned, Failed}

// Reasons that go with an action.
const (
	ReasonAlreadyExists     = "AlreadyExists"
	ReasonManagedLabelFalse = "ManagedLabelFalse"
	ReasonNotServed         = "TypeNotServed"
	ReasonConflict          = "Conflict"
	// ReasonForbidden: fedctl's user may not read or write the object
	// there (RBAC); the member's other objects are handled.
	ReasonForbidden    = "Forbidden"
	ReasonRenderFailed = "RenderFailed"
	// ReasonTerminating: the object was being deleted already; fedctl sent
	// nothing and the API server removes it once its finalizers are done.
	ReasonTerminating = "Terminating"
	// ReasonCRDNotCreated: --dry-run=server with an object whose CRD is in
	// the same input; the dry run creates no CRD, so the object is skipped.
	ReasonCRDNotCreated = "CRDNotCreated"
	// ReasonNamespaceNotCreated: --dry-run=server with an object whose
	// Namespace the same run creates; the dry run creates no Namespace, so
	// the object is skipped.
	ReasonNamespaceNotCreated = "NamespaceNotCreated"
	// ReasonCordoned: the member is cordoned (fedctl cordon), so an object
	// that is not there yet is not created.
	ReasonCordoned = "Cordoned"
	// ReasonPruned: deleted (or to be deleted) because it is part of the
	// ApplySet and its federated object left the input (--prune).
	ReasonPruned = "Pruned"
	// ReasonNotPruned: an object of the ApplySet whose federated object
	// left the input, not deleted because some of fedctl's objects in the
	// member could not be read (pruning needs to know the whole set), or
	// because some of the input's objects failed there (as kubectl apply
	// --prune prunes only after every apply succeeded).
	ReasonNotPruned = "NotPruned"
	// ReasonTooManyDeletions: not deleted because the member had more
	// deletions than --max-deletions allows.
	ReasonTooManyDeletions = "TooManyDeletions"
	// ReasonDeadlineReached: not attempted, because the run's --deadline
	// (or the member's budget) passed first.
	ReasonDeadlineReached = "DeadlineReached"
	// ReasonNamespaceNotEmpty: a Namespace no longer placed (or pruned)
	// still holds objects fedctl did not create.
	ReasonNamespaceNotEmpty = "NamespaceNotEmpty"
	// ReasonCRDNotEmpty: a CustomResourceDefinition no longer placed (or
	// pruned) was kept: its custom resources in the member include ones
	// fedctl did not create, which deleting it would delete too.
	ReasonCRDNotEmpty = "CRDNotEmpty"
)

// ObjectResult is what happened to one member object.
type ObjectResult struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
	// FederatedObject is the federated object it belongs to, as in the
	// fedctl.io/federated-object annotation.
	FederatedObject string `json:"federatedObject"`
	Action          Action `json:"action"`
	Reason          string `json:"reason,omitempty"`
	Error           string `json:"error,omitempty"`
}

// Ref is "Kind namespace/name" or "Kind name".
func (r ObjectResult) Ref() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// KindName is the object as kubectl names it: "deployment.apps/web",
// "configmap/cfg" (no namespace, as kubectl apply's output).
func (r ObjectResult) KindName() string {
	kind := strings.ToLower(r.Kind)
	if group, _, ok := strings.Cut(r.APIVersion, "/"); ok && group != "" {
		kind += "." + group
	}
	return kind + "/" + r.Name
}

// ClusterResult is what happened in one member.
type ClusterResult struct {
	Cluster string `json:"cluster"`
	// Error is set when the member failed as a whole (unreachable, a type
	// it lacks, a listing that failed, an ApplySet parent that cannot be
	// written): nothing was written to it, or only what Objects reports.
	Error string `json:"error,omitempty"`
	// Objects are in the order they were handled: install order, then
	// removals.
	Objects []ObjectResult `json:"objects"`
	// Retries counts the requests to the member that were sent again after
	// a transient failure (429, 5xx, a broken connection), and
	// RetryWaitSeconds the time spent waiting between tries.
	Retries          int64   `json:"retries,omitempty"`
	RetryWaitSeconds float64 `json:"retryWaitSeconds,omitempty"`
	// Took is the time the member's sync took.
	Took time.Duration `json:"-"`
	// Comparisons are kept by Compare only, sorted by file name.
	Comparisons []Comparison `json:"-"`
	// Panic is set when the sync of the member panicked: a bug, reported
	// with its stack at -v 6 (see Report.Panic).
	Panic *parallel.Panic `json:"-"`
}

// Panic is the first member's panic, if any: cmd.Main reports it as a bug.
func (r *Report) Panic() *parallel.Panic {
	for _, c := range r.Clusters {
		if c.Panic != nil {
			return c.Panic
		}
	}
	return nil
}

// Failed says whether the member or any of its objects failed.
func (c ClusterResult) Failed() bool {
	if c.Error != "" {
		return true
	}
	for _, o := range c.Objects {
		if o.Action == Failed {
			return true
		}
	}
	return false
}

// Count is how many objects got action a.
func (c ClusterResult) Count(a Action) int {
	n := 0
	for _, o := range c.Objects {
		if o.Action == a {
			n++
		}
	}
	return n
}

// Report is the result of Run, one entry per member sorted by name.
type Report struct {
	// DryRun is none, client or server.
	DryRun   string          `json:"dryRun"`
	Clusters []ClusterResult `json:"clusters"`
}

// NothingDone says whether every member failed as a whole or in every one
// of its objects: nothing at all was done, which is exit 1 where some
// failures among successes are exit 3.
func (r *Report) NothingDone() bool {
	if len(r.Clusters) == 0 {
		return false
	}
	for _, c := range r.Clusters {
		if c.Error != "" {
			continue
		}
		if len(c.Objects) == 0 || c.Count(Failed) < len(c.Objects) {
			return false
		}
	}
	return true
}

// Failed lists the members that failed, sorted.
func (r *Report) Failed() []string {
	var failed []string
	for _, c := range r.Clusters {
		if c.Failed() {
			failed = append(failed, c.Cluster)
		}
	}
	return failed
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
