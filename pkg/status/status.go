package status

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// Per-member propagation statuses. The first ones are KubeFed's
// (PropagationStatus, pkg/controller/sync/status/status.go), with the same meaning
// where fedctl can tell them client side; the others are fedctl's own.
const (
	// OK: the member object is what fedctl would apply. KubeFed writes it
	// as an empty status; -o yaml|json leave it out the same way.
	OK = "OK"
	// ClusterNotReady: the member could not be read (unreachable, bad
	// credentials, a LIST that failed); nothing is known of its objects.
	ClusterNotReady = "ClusterNotReady"
	// AlreadyExists: an object of that name exists that fedctl did not
	// create; apply leaves it alone unless --adopt.
	AlreadyExists = "AlreadyExists"
	// ManagedLabelFalse: the object is labelled kubefed.io/managed: "false";
	// apply never touches it.
	ManagedLabelFalse = "ManagedLabelFalse"
	// ApplyOverridesFailed: the overrides could not be applied for this
	// member, so there is no member object to send.
	ApplyOverridesFailed = "ApplyOverridesFailed"
	// RetrievalFailed: the GET of one object failed.
	RetrievalFailed = "RetrievalFailed"
	// WaitingForRemoval: the object is no longer placed in the member but
	// is still there; apply deletes it (or unmarks it, kubefed.io/orphan).
	WaitingForRemoval = "WaitingForRemoval"

	// Drifted (fedctl): the member object no longer matches what apply
	// would send: the manifests changed since the last apply, or someone
	// changed the object; apply would write it.
	Drifted = "Drifted"
	// NotApplied (fedctl): the object is placed in the member but is not
	// there; apply creates it.
	NotApplied = "NotApplied"
	// TypeNotServed (fedctl): the member does not serve the object's type
	// (a CRD not installed there).
	TypeNotServed = "TypeNotServed"
	// Cordoned (fedctl): the member is cordoned (fedctl cordon), so apply
	// neither creates the object there (it is placed there and absent)
	// nor removes it (it is there and no longer placed there).
	Cordoned = "Cordoned"
)

// Reasons of the Propagation condition, KubeFed's aggregate reasons. An
// empty reason means success.
const (
	// CheckClusters: some member's status is not OK.
	CheckClusters = "CheckClusters"
	// ComputePlacementFailed: the federated object's placement or
	// overrides are invalid, so it is placed nowhere.
	ComputePlacementFailed = "ComputePlacementFailed"
	// NamespaceNotFederated: a namespaced object whose namespace has no
	// FederatedNamespace in the input, so it is placed nowhere.
	NamespaceNotFederated = "NamespaceNotFederated"
)

// Readiness of a member object: kstatus's statuses, plus Unknown when its
// member could not be read.
const (
	Current     = string(kstatus.CurrentStatus)
	InProgress  = string(kstatus.InProgressStatus)
	Failed      = string(kstatus.FailedStatus)
	Terminating = string(kstatus.TerminatingStatus)
	NotFound    = string(kstatus.NotFoundStatus)
	Unknown     = string(kstatus.UnknownStatus)
)

// readinessRank orders readiness from worst to best, for roll-ups.
var readinessRank = map[string]int{Failed: 0, Unknown: 1, NotFound: 2, Terminating: 3, InProgress: 4, Current: 5}

// APIVersion and Kind of a Report.
const (
	APIVersion = "fedctl.io/v1alpha1"
	ListKind   = "FederatedStatusList"
)

// Report is the status of a set of federated objects, shaped like a list of
// KubeFed federated objects with their status (conditions[type=Propagation],
// clusters[].name/status), plus readiness, so that scripts written for
// KubeFed can read it.
type Report struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Items      []Object `json:"items"`
	// Unreachable lists the members that could not be read, sorted.
	Unreachable []ClusterError `json:"unreachableClusters,omitempty"`
	Summary     Summary        `json:"summary"`
}

// ClusterError says why a member could not be read.
type ClusterError struct {
	Name  string `json:"name"`
	Error string `json:"error"`
}

// Object is one federated object and its status.
type Object struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   ObjectMeta   `json:"metadata"`
	Status     ObjectStatus `json:"status"`

	// unread are the members the object is placed in that were not read
	// (--cluster left them out), for the table's message.
	unread []string
}

// ObjectMeta names a federated object.
type ObjectMeta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// Labels are the federated object's, for -L and --show-labels (empty
	// for TYPE NAME, which reads no manifest).
	Labels map[string]string `json:"labels,omitempty"`
}

// ResourceName is the federated object as kubectl -o name prints one:
// kind.group/name, e.g. federateddeployment.types.kubefed.io/web.
func (o Object) ResourceName() string {
	group, _, _ := strings.Cut(o.APIVersion, "/")
	if !strings.Contains(o.APIVersion, "/") {
		group = ""
	}
	kind := strings.ToLower(o.Kind)
	if group != "" {
		kind += "." + group
	}
	return kind + "/" + o.Metadata.Name
}

// Ref is "Kind namespace/name" or "Kind name".
func (o Object) Ref() string {
	if o.Metadata.Namespace == "" {
		return o.Kind + " " + o.Metadata.Name
	}
	return o.Kind + " " + o.Metadata.Namespace + "/" + o.Metadata.Name
}

// ObjectStatus is KubeFed's federated status plus readiness.
type ObjectStatus struct {
	// Conditions holds one condition, of type Propagation.
	Conditions []Condition `json:"conditions"`
	// Clusters has one entry per member the object is placed in or found
	// in, sorted by name.
	Clusters []ClusterStatus `json:"clusters"`
	// Readiness is the worst readiness of its placed member objects
	// (Failed, Unknown, NotFound, Terminating, InProgress, then Current);
	// empty when it is placed nowhere.
	Readiness string `json:"readiness,omitempty"`
}

// Condition is KubeFed's Propagation condition. Status is "True" when the
// object is propagated everywhere as it should be; Reason is set otherwise.
//
// LastUpdateTime and LastTransitionTime are KubeFed's condition times. With
// no controller to record transitions, both are the latest time fedctl
// changed one of the object's member objects (ClusterStatus.LastUpdateTime),
// so that a pipeline can tell a change it just applied from an old one.
type Condition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
	LastUpdateTime     string `json:"lastUpdateTime,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
}

// ClusterStatus is the state of a federated object in one member.
type ClusterStatus struct {
	Name string `json:"name"`
	// Status is the propagation status; OK is left out, as KubeFed does.
	Status string `json:"status,omitempty"`
	// Message says why Status is not OK.
	Message string `json:"message,omitempty"`
	// Object is the member object.
	Object *ObjectRef `json:"object,omitempty"`
	// Readiness is kstatus's status of the member object, or Unknown.
	Readiness        string `json:"readiness,omitempty"`
	ReadinessMessage string `json:"readinessMessage,omitempty"`
	// DesiredReplicas (spec.replicas) and ReadyReplicas
	// (status.readyReplicas), for types that have replicas.
	DesiredReplicas *int64 `json:"desiredReplicas,omitempty"`
	ReadyReplicas   *int64 `json:"readyReplicas,omitempty"`
	// LastUpdateTime is when fedctl last changed the member object: the
	// time of the managedFields entry of the apply that owns fedctl's
	// applied-hash annotation (RFC 3339).
	LastUpdateTime string `json:"lastUpdateTime,omitempty"`
	// Wave is the rollout wave the member belongs to (apply --rollout),
	// when the federation file has waves.
	Wave string `json:"wave,omitempty"`

	// placed says the object is placed in this member, so that waiting
	// covers it (WaitingForRemoval entries are not placed).
	placed bool
}

// SetWaves records each member's rollout wave, waveOf naming it.
func (r *Report) SetWaves(waveOf func(cluster string) string) {
	for i := range r.Items {
		for j := range r.Items[i].Status.Clusters {
			c := &r.Items[i].Status.Clusters[j]
			c.Wave = waveOf(c.Name)
		}
	}
}

// Propagation is Status with OK spelled out.
func (c ClusterStatus) Propagation() string { return cmp.Or(c.Status, OK) }

// ObjectRef names a member object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// Ref is "Kind namespace/name" or "Kind name".
func (r ObjectRef) Ref() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Summary counts the member objects of a Report.
type Summary struct {
	FederatedObjects int `json:"federatedObjects"`
	// MemberObjects counts the placed member objects.
	MemberObjects int `json:"memberObjects"`
	// Readiness counts the placed member objects by readiness.
	Readiness map[string]int `json:"readiness"`
	// Propagation counts the member entries by propagation status, OK
	// included.
	Propagation map[string]int `json:"propagation"`
	// Conditions counts the federated objects whose Propagation condition
	// is False, by reason.
	Reasons map[string]int `json:"reasons,omitempty"`
}

// String is the roll-up line: "3 federated objects, 9 member objects:
// 8 Current, 1 InProgress; propagation: 8 OK, 1 Drifted".
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s", plural(s.FederatedObjects, "federated object"), plural(s.MemberObjects, "member object"))
	if s.MemberObjects > 0 {
		b.WriteString(": ")
		b.WriteString(counts(s.Readiness, readinessOrder))
	}
	if len(s.Propagation) > 0 {
		b.WriteString("; propagation: ")
		b.WriteString(counts(s.Propagation, nil))
	}
	if len(s.Reasons) > 0 {
		b.WriteString("; not placed: ")
		b.WriteString(counts(s.Reasons, nil))
	}
	return b.String()
}

var readinessOrder = []string{Current, InProgress, Terminating, NotFound, Unknown, Failed}

// counts writes "n key" pairs, in order first, then the other keys sorted
// (OK first when present).
func counts(m map[string]int, order []string) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int {
		ia, ib := slices.Index(order, a), slices.Index(order, b)
		if a == OK {
			ia = -2
		}
		if b == OK {
			ib = -2
		}
		if ia < 0 && a != OK {
			ia = len(order)
		}
		if ib < 0 && b != OK {
			ib = len(order)
		}
		return ia - ib
	})
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", m[k], k))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// finish sorts the report, fills in each object's condition and readiness
// and the summary.
func (r *Report) finish() {
	r.APIVersion, r.Kind = APIVersion, ListKind
	slices.SortFunc(r.Items, func(a, b Object) int {
		return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Metadata.Namespace, b.Metadata.Namespace), strings.Compare(a.Metadata.Name, b.Metadata.Name))
	})
	slices.SortFunc(r.Unreachable, func(a, b ClusterError) int { return strings.Compare(a.Name, b.Name) })
	s := Summary{FederatedObjects: len(r.Items), Readiness: map[string]int{}, Propagation: map[string]int{}}
	for i := range r.Items {
		st := &r.Items[i].Status
		slices.SortFunc(st.Clusters, func(a, b ClusterStatus) int { return strings.Compare(a.Name, b.Name) })
		cond := &st.Conditions[0]
		st.Readiness = ""
		for _, c := range st.Clusters {
			if c.LastUpdateTime > cond.LastUpdateTime { // RFC 3339 in UTC sorts as text
				cond.LastUpdateTime, cond.LastTransitionTime = c.LastUpdateTime, c.LastUpdateTime
			}
			s.Propagation[c.Propagation()]++
			if c.Status != "" && cond.Reason == "" {
				cond.Reason = CheckClusters
			}
			if !c.placed {
				continue
			}
			s.MemberObjects++
			s.Readiness[c.Readiness]++
			if st.Readiness == "" || readinessRank[c.Readiness] < readinessRank[st.Readiness] {
				st.Readiness = c.Readiness
			}
		}
		cond.Status = "True"
		if cond.Reason != "" {
			cond.Status = "False"
			if cond.Reason != CheckClusters {
				if s.Reasons == nil {
					s.Reasons = map[string]int{}
				}
				s.Reasons[cond.Reason]++
			}
		}
	}
	r.Summary = s
}

// Unread lists the members that answered but where an object could not be
// read (RetrievalFailed): what they hold of it is not known, sorted.
func (r *Report) Unread() []string {
	var names []string
	for _, item := range r.Items {
		for _, c := range item.Status.Clusters {
			if c.Status == RetrievalFailed {
				names = append(names, c.Name)
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Failed lists the members that could not be read.
func (r *Report) Failed() []string {
	names := make([]string, len(r.Unreachable))
	for i, u := range r.Unreachable {
		names[i] = u.Name
	}
	return names
}
