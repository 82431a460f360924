// Package propagate writes the member objects that render produced to the
// member clusters, and is the only package that does: server-side apply with
// fedctl's field manager, removal of objects that are no longer placed,
// pruning of an ApplySet, and a per-cluster, per-object report of what
// happened.
//
// Each member is reached through an members.Client (a dynamic client and a RESTMapper
// built from the member's discovery, cached for the run). Members are synced
// in parallel and fail alone; inside a member a preflight maps every type
// before the first write, so a member that lacks a type is never half written.
// Unchanged objects cost no request of their own: live state comes from one
// label-selected LIST per type, compared with the hash and generation fedctl
// recorded on each object when it last applied it.
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
// Compare (fedctl diff) runs the same sync as a server-side dry run of every
// object and keeps each live object with the dry run's result;
// WriteDiffTrees lays them out as kubectl diff does. PlanLive (fedctl apply
// --dry-run=client --prune) reads the members and writes nothing. Delete
// removes the member objects of the given federated objects (fedctl
// delete).
package propagate
