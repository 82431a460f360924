package propagate

// mode is what one member's sync is for. Run, Compare, Delete and PlanLive
// share one sync and differ only in these decisions, each named here and
// chosen once, rather than read from flags across the sync.
type mode struct {
	// dryRun sends every write as a server-side dry run (apply
	// --dry-run=server, diff, and the planning dry run, whose client
	// answers writes itself).
	dryRun bool
	// sendUnchanged sends objects fedctl recorded as up to date too: only
	// the API server can say what other writers changed since (diff).
	sendUnchanged bool
	// compare keeps, per object, the live object and what the API server
	// would make of it (diff).
	compare bool
	// prune removes the objects of the ApplySet whose federated objects
	// left the input (apply and diff with --prune).
	prune bool
	// guardContents keeps a Namespace that holds objects fedctl did not
	// create, and a CustomResourceDefinition with such custom resources:
	// deleting it would delete them. fedctl delete, an explicit request,
	// is not held back.
	guardContents bool
	// deleteOptions deletes with the federated object's
	// kubefed.io/deleteoption, else --cascade (fedctl delete, KubeFed's
	// pkg/controller/sync/controller.go); de-placement passes none, as
	// KubeFed does.
	deleteOptions bool
	// release unmarks every object instead of deleting it, and gives up
	// fedctl's field ownership (fedctl release).
	release bool
}

// applyMode is Run's: apply, remove what is no longer placed, prune.
func applyMode(dryRun bool) mode {
	return mode{dryRun: dryRun, prune: true, guardContents: true}
}

// compareMode is Compare's (fedctl diff): apply's decisions, as a dry run
// that sends every object and keeps what it would become.
var compareMode = mode{dryRun: true, sendUnchanged: true, compare: true, prune: true, guardContents: true}

// deleteMode is Delete's: remove the objects of the input's federated
// objects wherever they are.
func deleteMode(dryRun bool) mode {
	return mode{dryRun: dryRun, deleteOptions: true}
}

// releaseMode is Release's: every object of the input is unmarked and its
// fields left to whoever applies next.
func releaseMode(dryRun bool) mode {
	return mode{dryRun: dryRun, release: true}
}
