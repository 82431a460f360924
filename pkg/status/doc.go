// Package status reads back, from the member clusters themselves, what
// fedctl propagated: for each federated object and member, the propagation
// state in KubeFed's vocabulary (OK, ClusterNotReady, AlreadyExists,
// ManagedLabelFalse, ApplyOverridesFailed, ...) plus Drifted when the member
// object no longer matches what apply would send, and the member object's
// readiness as kstatus computes it (Current, InProgress, Failed,
// Terminating, NotFound). Wait polls that until every placed member object
// is Current.
//
// It reads with one label-selected LIST per type and member (a GET only for
// a placed object that LIST did not return), members in parallel, and
// never writes. An unreachable member is reported ClusterNotReady and does
// not stop the others. Readiness rules are kstatus's
// (sigs.k8s.io/cli-utils/pkg/kstatus/status), never fedctl's own.
package status
