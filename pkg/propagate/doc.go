// Package propagate writes the member objects that render produced to the
// member clusters, and is the only package that does: server-side apply with
// fedctl's field manager, removal of objects that are no longer placed,
// pruning of an ApplySet, and a per-cluster, per-object report of what
// happened.
//
// Each member is reached through its members.Client, built once for the
// run. Members are synced in parallel and fail alone (a panic included);
// inside a member a preflight maps every type before the first write, so a
// member that lacks a type is never half written. Unchanged objects cost no
// request of their own: live state comes from one label-selected LIST per
// type, compared with the hash and generation fedctl recorded on each
// object when it last applied it.
//
// With Options.ApplySet (fedctl apply --prune --applyset), every object is
// labelled as part of a kubectl ApplySet (KEP-3659) whose parent, a Secret
// or ConfigMap, is kept in each member with the labels and annotations
// kubectl reads; objects of the set whose federated objects left the input
// are deleted. Only objects that carry fedctl's identity marker are ever
// deleted, never one labelled kubefed.io/managed: "false", nothing in a
// member whose listing failed, and, with Options.MaxDeletions, nothing in a
// member that would lose more objects than that.
//
// One sync serves four verbs, which differ only in a mode value (mode.go):
// Run (apply), Compare (diff: a server-side dry run of every object that
// keeps each live object with the dry run's result), Delete (fedctl
// delete) and PlanLive (apply --dry-run=client --prune: reads, no write).
// The sync is split by phase, as kubectl's apply/prune/applyset files are:
//
//	propagate.go  the verbs and their options
//	member.go     one member's lifecycle: items, preflight, phases, report
//	live.go       reading live state: type mapping, LISTs, metadata scans
//	apply.go      applying one object, recording its generation
//	crd.go        waiting for CRDs the run creates
//	remove.go     de-placement, pruning, the deletion and namespace guards
//	applyset.go   the ApplySet parent
//	plan.go       the client-side dry runs
//
// Printing the report is the commands' (cmdutil.WriteSummary, cmd/diff).
package propagate
