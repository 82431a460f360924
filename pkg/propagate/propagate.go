package propagate

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// FieldManager is the default field manager of fedctl's server-side applies.
const FieldManager = "fedctl"

// Defaults of Options.
const (
	DefaultConcurrency = 8
	DefaultRequests    = 32
	DefaultTimeout     = 30 * time.Second
	// DefaultMemberBudget bounds one member's work, retries included, when
	// no Deadline is given: generous, so that a large apply to a healthy
	// member always finishes, yet a member that keeps failing transiently
	// (or never answers) is given up on.
	DefaultMemberBudget = 10 * time.Minute
)

// Options say how to write.
type Options struct {
	// FieldManager of every write; empty means FieldManager.
	FieldManager string
	// Force takes over fields that other managers own (--force-conflicts).
	Force bool
	// Cordoned are the members that get no new objects and keep what they
	// run (fedctl cordon).
	Cordoned []string
	// Adopt takes over existing objects that fedctl did not create (--adopt);
	// without it they are reported AlreadyExists.
	Adopt bool
	// DryRun sends every write as a server-side dry run.
	DryRun bool
	// Concurrency bounds the members synced at once; Requests bounds the
	// requests in flight to one member. Zero means the defaults.
	Concurrency int
	Requests    int
	// Deadline bounds the whole run (every member's work, retries
	// included, from the start of the run; --deadline); zero means no
	// deadline, each member then having MemberBudget. The time of one
	// request is members.Access.Timeout's (--timeout).
	Deadline time.Duration
	// Start is when the run began, from which Deadline counts; zero means
	// when Run is called.
	Start time.Time
	// MemberBudget bounds one member's work when there is no Deadline;
	// zero means DefaultMemberBudget.
	MemberBudget time.Duration
	// OnResult, when set, is called with each object's result as soon as
	// it is known, from the member's worker goroutines (concurrently, for
	// one member and across members): the caller serialises what it does.
	// Objects not attempted because the deadline passed are not reported
	// here, only in the Report.
	OnResult func(cluster string, r ObjectResult)
	// Cascade is the propagation policy of Delete when the federated
	// object's kubefed.io/deleteoption does not set one; empty means the
	// API server's default (background).
	Cascade metav1.DeletionPropagation
	// ApplySet, when set, labels every applied object as part of this
	// ApplySet, keeps its parent up to date in each member and prunes the
	// objects of the set whose federated objects left the input
	// (--prune --applyset).
	ApplySet *ApplySet
	// MaxDeletions, when set, bounds the objects Run deletes in one member,
	// de-placement and pruning together: with more to delete, it deletes
	// none there and fails them. Nil means no bound.
	MaxDeletions *int
}

// Input is what Run propagates.
type Input struct {
	Result *render.Result
	// Clusters are the members to sync; every other member is left alone.
	Clusters []string
	// Clients returns the members.Client of a member; it is called once per
	// member, in that member's goroutine.
	Clients func(cluster string) (members.Client, error)
	Options
}

// Run syncs every member of in.Clusters with what in.Result renders for it:
// applies the member objects, removes the objects of federated objects in
// the input that are no longer placed there, and reports per member and
// object. Members fail alone; Run itself never fails. When ctx ends, what
// is left is reported failed.
func Run(ctx context.Context, in Input) *Report {
	return runMembers(ctx, in, applyMode(in.DryRun), (*memberSync).run)
}

// Compare is Run as a server-side dry run that sends every object, changed
// or not, so that drift by other writers shows too, and keeps for each
// object the live object and what the API server says it would become
// (ClusterResult.Comparisons): fedctl diff. Removals are dry runs too, with
// no MaxDeletions bound. Nothing in any member changes.
func Compare(ctx context.Context, in Input) *Report {
	in.MaxDeletions = nil
	return runMembers(ctx, in, compareMode, (*memberSync).run)
}

// Delete removes from every member of in.Clusters the objects fedctl
// manages for the federated objects in in.Result, wherever they are placed
// (fedctl delete, as KubeFed's sync controller deletes: pkg/controller/sync/controller.go): deleted with the options of the federated
// object's kubefed.io/deleteoption annotation or Options.Cascade, or only
// unmarked when it says kubefed.io/orphan: "true". Members fail alone, an
// unreachable one included (kubefed#1254).
func Delete(ctx context.Context, in Input) *Report {
	return runMembers(ctx, in, deleteMode(in.DryRun), (*memberSync).removeInput)
}
