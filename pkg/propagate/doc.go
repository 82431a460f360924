// Package propagate writes the member objects that render produced to the
// member clusters, and is the only package that does: server-side apply with
// fedctl's field manager, removal of objects that are no longer placed, and
// a per-cluster, per-object report of what happened.
//
// Each member is reached through an Applier (a dynamic client and a RESTMapper
// built from the member's discovery, cached for the run). Members are synced
// in parallel and fail alone; inside a member a preflight maps every type
// before the first write, so a member that lacks a type is never half written.
// Unchanged objects cost no request of their own: live state comes from one
// label-selected LIST per type, compared with the hash and generation fedctl
// recorded on each object when it last applied it.
//
// Delete removes the member objects of the given federated objects (fedctl
// delete). Nothing here prunes the objects of federated objects that left the
// input: that needs an ApplySet and is not implemented.
package propagate
