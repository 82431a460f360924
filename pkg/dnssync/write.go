package dnssync

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/drift"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

// EndpointGVK is ExternalDNS's DNSEndpoint.
var EndpointGVK = schema.GroupVersionKind{Group: "externaldns.k8s.io", Version: "v1alpha1", Kind: dns.EndpointKind}

// SetLabel marks the DNSEndpoints an apply with --prune --applyset wrote,
// with the set's ID (the value of its members' applyset.kubernetes.io/
// part-of label): the DNS cluster need not be a member, so it holds no
// ApplySet parent, and this label is what a later --prune of the same set
// lists there.
const SetLabel = "fedctl.io/dns-applyset"

// NotServedError says the DNS cluster lacks ExternalDNS's CRD.
type NotServedError struct{ Cluster string }

func (e *NotServedError) Error() string {
	return fmt.Sprintf("cluster %s does not serve %s %s: install ExternalDNS's DNSEndpoint CRD there (its crd source reads them)", e.Cluster, EndpointGVK.GroupVersion(), EndpointGVK.Kind)
}

// mapping maps the DNSEndpoint kind in the DNS cluster.
func mapping(ctx context.Context, client members.Client, cluster string) (members.Mapping, error) {
	m, err := client.Map(ctx, EndpointGVK)
	var ns *members.NotServedError
	if errors.As(err, &ns) {
		return m, &NotServedError{Cluster: cluster}
	}
	return m, err
}

// Written is what the DNS cluster holds of the records: each one's
// DNSEndpoint, by dns.RecordKey, for those that exist.
type Written map[string]*unstructured.Unstructured

// Targets are the targets each DNSEndpoint recorded (dns.Input.Previous).
func (w Written) Targets() map[string]map[string]dns.Recorded {
	out := make(map[string]map[string]dns.Recorded, len(w))
	for key, obj := range w {
		out[key] = dns.PreviousTargets(obj.GetAnnotations())
	}
	return out
}

// record names one record's DNSEndpoint.
type record struct{ kind, namespace, name string }

func (r record) key() string { return dns.RecordKey(r.kind, r.namespace, r.name) }

// source is the SourceAnnotation fedctl writes on the record's DNSEndpoint.
func (r record) source() string { return r.kind + "DNSRecord/" + r.namespace + "/" + r.name }

func records(in federation.DNS) []record {
	var out []record
	for _, r := range in.Services {
		out = append(out, record{"Service", r.Namespace, r.Name})
	}
	for _, r := range in.Ingresses {
		out = append(out, record{"Ingress", r.Namespace, r.Name})
	}
	return out
}

// Previous reads the DNSEndpoints of the records, as written before; a
// record without one is not in the result.
func Previous(ctx context.Context, client members.Client, cluster string, in federation.DNS) (Written, error) {
	m, err := mapping(ctx, client, cluster)
	if err != nil {
		return nil, err
	}
	return previous(ctx, client, m, in)
}

func previous(ctx context.Context, client members.Client, m members.Mapping, in federation.DNS) (Written, error) {
	out := Written{}
	for _, r := range records(in) {
		live, err := client.Get(ctx, m, r.namespace, dns.EndpointName(r.kind, r.name))
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, members.RequestErrorIn(ctx, err)
		}
		out[r.key()] = live
	}
	return out, nil
}

// WriteOptions say how Write writes.
type WriteOptions struct {
	FieldManager string
	// Set, when set, is the ID of the ApplySet of apply --prune, written
	// as SetLabel.
	Set string
	// DryRun: ClientDryRun counts what would be applied and sends
	// nothing; ServerDryRun sends the applies as a server-side dry run.
	DryRun DryRun
	// PlacedNamespaces are the namespaces the run places in the DNS
	// cluster, when it is a member: a server dry run does not create them,
	// so a DNSEndpoint in one that is new is counted as applied instead of
	// failing on it, as the real run creates the namespace first.
	PlacedNamespaces map[string]bool
	// Adopt takes over a DNSEndpoint of a record's name that fedctl did
	// not write (apply --adopt), as apply takes over member objects.
	Adopt bool
}

// claim says why the DNSEndpoint live, which the DNS cluster holds under a
// record's name, is not for this run to write, or nil when it is (or there
// is none): one fedctl did not write, unless Adopt, as apply leaves
// another's member object (writing it would make it fedctl's, and a later
// prune or delete would delete it); one marked kubefed.io/managed: "false";
// one of another ApplySet, whose prune would lose it.
func (o WriteOptions) claim(live *unstructured.Unstructured) error {
	switch {
	case live == nil:
		return nil
	case federation.HandsOff(live):
		return fmt.Errorf("labelled %s: \"false\"; fedctl does not touch it", federation.ManagedLabel)
	case !federation.Owned(live) && !o.Adopt:
		return fmt.Errorf("exists and was not written by fedctl (no %s=%s label); delete it, or take it over with fedctl apply --adopt", federation.ManagedByLabel, federation.ManagedByValue)
	}
	if set := live.GetLabels()[SetLabel]; set != "" && o.Set != "" && set != o.Set {
		return fmt.Errorf("belongs to another ApplySet (%s=%s), whose apply --prune writes and prunes it; two sets cannot hold one record", SetLabel, set)
	}
	return nil
}

// WriteResult counts what Write did, or with a client dry run would do.
type WriteResult struct {
	Applied, Unchanged int
}

// Write server-side applies, as opts.FieldManager, the DNSEndpoint of each
// record whose live one (written, from Previous) differs from it: spec,
// fedctl's labels or its annotations; the others are left alone, so that
// an apply where nothing changed writes nothing to the DNS cluster. The
// endpoints list is replaced whole, so targets that went away are gone.
// Conflicts are forced: a DNSEndpoint named for a record is fedctl's to
// write, and another manager's targets there would send traffic where the
// members do not serve it.
func Write(ctx context.Context, client members.Client, cluster string, recs []dns.Record, written Written, opts WriteOptions) (WriteResult, error) {
	var res WriteResult
	m, err := mapping(ctx, client, cluster)
	if err != nil {
		return res, err
	}
	var errs []error
	for _, r := range recs {
		obj := desired(r, opts.Set)
		live := written[dns.RecordKey(r.Kind, r.Namespace, r.Name)]
		if err := opts.claim(live); err != nil {
			errs = append(errs, fmt.Errorf("DNSEndpoint %s/%s: %w", obj.GetNamespace(), obj.GetName(), err))
			continue
		}
		if upToDate(live, obj) {
			res.Unchanged++
			continue
		}
		if opts.DryRun == ClientDryRun {
			res.Applied++
			continue
		}
		wopts := members.WriteOptions{FieldManager: opts.FieldManager, Force: true, DryRun: opts.DryRun == ServerDryRun}
		_, err := client.Apply(ctx, m, obj, wopts)
		if opts.DryRun == ServerDryRun && opts.namespaceComing(err, written[dns.RecordKey(r.Kind, r.Namespace, r.Name)], r.Namespace) {
			err = nil // its namespace is new: the real run creates it first
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("DNSEndpoint %s/%s: %w", obj.GetNamespace(), obj.GetName(), members.RequestErrorIn(ctx, err)))
			continue
		}
		res.Applied++
	}
	return res, errors.Join(errs...)
}

// namespaceComing says a dry run's err only says that the new
// DNSEndpoint's namespace is not there yet, which the real run creates
// first (one of PlacedNamespaces): Write and Compare then take it as
// written. Any other namespace that is missing is an error, as the real
// run would fail on it.
func (o WriteOptions) namespaceComing(err error, live *unstructured.Unstructured, namespace string) bool {
	return err != nil && live == nil && o.PlacedNamespaces[namespace] && members.NamespaceNotFound(err)
}

// desired is the DNSEndpoint of r as Write applies it: with SetLabel when
// set is not "" (r itself is not changed).
func desired(r dns.Record, set string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: r.Object}
	if set != "" {
		obj = obj.DeepCopy()
		labels := obj.GetLabels()
		labels[SetLabel] = set
		obj.SetLabels(labels)
	}
	return obj
}

// Compared is one DNSEndpoint that Write would change, for fedctl diff.
type Compared struct {
	// Live is the DNSEndpoint in the DNS cluster; nil when there is none.
	Live *unstructured.Unstructured
	// Merged is what a server-side dry-run apply makes of the new one (the
	// new one itself when its namespace does not exist there yet).
	Merged *unstructured.Unstructured
}

// Compare says what Write, with opts (but for its DryRun; PlacedNamespaces
// as for a server dry run), would change:
// for each record whose live DNSEndpoint (written, from Previous) is not
// up to date, the live one and a server-side dry run of the new one.
// Nothing in the DNS cluster changes.
func Compare(ctx context.Context, client members.Client, cluster string, recs []dns.Record, written Written, opts WriteOptions) ([]Compared, error) {
	m, err := mapping(ctx, client, cluster)
	if err != nil {
		return nil, err
	}
	var out []Compared
	var errs []error
	for _, r := range recs {
		obj := desired(r, opts.Set)
		live := written[dns.RecordKey(r.Kind, r.Namespace, r.Name)]
		if err := opts.claim(live); err != nil {
			errs = append(errs, fmt.Errorf("DNSEndpoint %s/%s: %w", obj.GetNamespace(), obj.GetName(), err))
			continue
		}
		if upToDate(live, obj) {
			continue
		}
		merged, err := client.Apply(ctx, m, obj, members.WriteOptions{FieldManager: opts.FieldManager, Force: true, DryRun: true})
		switch {
		case opts.namespaceComing(err, live, r.Namespace):
			merged = obj.DeepCopy() // its namespace is not there yet
		case err != nil:
			errs = append(errs, fmt.Errorf("DNSEndpoint %s/%s: %w", obj.GetNamespace(), obj.GetName(), members.RequestErrorIn(ctx, err)))
			continue
		}
		out = append(out, Compared{Live: live, Merged: merged})
	}
	return out, errors.Join(errs...)
}

// upToDate says whether live already is what want says: the same spec, and
// every label and annotation of want with its value. What others added is
// not fedctl's to judge; a label or annotation fedctl dropped is (SetLabel,
// when an apply without --prune takes a DNSEndpoint out of its set).
func upToDate(live, want *unstructured.Unstructured) bool {
	if live == nil || !sameJSON(live.Object["spec"], want.Object["spec"]) {
		return false
	}
	_, liveInSet := live.GetLabels()[SetLabel]
	_, wantInSet := want.GetLabels()[SetLabel]
	// the spec whole (targets that went must go), labels and annotations
	// as drift tells any member object's
	return liveInSet == wantInSet && drift.Holds(live, map[string]any{"metadata": want.Object["metadata"]})
}

// sameJSON compares as JSON: the API server's numbers are int64 where the
// records, made through encoding/json, hold float64.
func sameJSON(a, b any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// Removal is one DNSEndpoint Prune or Delete removed, or would remove, or
// left.
type Removal struct {
	Namespace, Name string
	// Left says why it was left in place ("" when it was deleted).
	Left string
	// Object is the DNSEndpoint as it was read before the deletion.
	Object *unstructured.Unstructured
}

// PruneOptions say how Prune deletes.
type PruneOptions struct {
	DryRun DryRun
	// MaxDeletions, when set, bounds the DNSEndpoints one Prune deletes
	// (apply's --max-deletions, which bounds each member's deletions):
	// past it, none is deleted.
	MaxDeletions *int
	// Spare are DNSEndpoints never to delete, by UID: those the run keeps
	// in the cluster the input names (SetUIDs), when it prunes a cluster
	// the input no longer names, which may be the same cluster under
	// another name.
	Spare map[types.UID]bool
}

// SetUIDs are the UIDs of the DNSEndpoints of the ApplySet set in cluster
// (PruneOptions.Spare); none when it does not serve DNSEndpoints.
func SetUIDs(ctx context.Context, client members.Client, cluster, set string) (map[types.UID]bool, error) {
	m, err := mapping(ctx, client, cluster)
	var notServed *NotServedError
	if errors.As(err, &notServed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	items, err := client.ListMetadata(ctx, m, members.ListOptions{LabelSelector: SetLabel + "=" + set})
	if err != nil {
		return nil, fmt.Errorf("list the DNSEndpoints of the ApplySet in cluster %s: %w", cluster, members.RequestErrorIn(ctx, err))
	}
	out := make(map[types.UID]bool, len(items))
	for _, it := range items {
		out[it.UID] = true
	}
	return out, nil
}

// TooManyError says a Prune would delete more than its MaxDeletions, and
// so deleted none.
type TooManyError struct {
	Cluster   string
	Count     int
	Max       int
	Endpoints []string
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("not pruned: %d DNSEndpoints would be deleted in cluster %s (%s), more than --max-deletions=%d; check the input, then raise --max-deletions to allow it", e.Count, e.Cluster, strings.Join(e.Endpoints, ", "), e.Max)
}

// Prune deletes the DNSEndpoints of the ApplySet set (SetLabel) that are
// not among keep: those of records that left the input since the last
// apply --prune of the set. Only DNSEndpoints fedctl wrote are deleted
// (its managed-by label and a record's source annotation), each with a UID
// precondition; a list that fails deletes nothing, and so does a prune of
// more than opts.MaxDeletions. A cluster that does not serve DNSEndpoints
// holds none: nothing to prune, and no error.
func Prune(ctx context.Context, client members.Client, cluster, set string, keep []dns.Record, opts PruneOptions) ([]Removal, error) {
	m, err := mapping(ctx, client, cluster)
	if errors.As(err, new(*NotServedError)) {
		return nil, nil // no DNSEndpoint can be there
	}
	if err != nil {
		return nil, err
	}
	items, err := client.List(ctx, m, members.ListOptions{LabelSelector: SetLabel + "=" + set})
	if err != nil {
		return nil, fmt.Errorf("list the DNSEndpoints of the ApplySet (nothing was pruned there): %w", members.RequestErrorIn(ctx, err))
	}
	kept := map[string]bool{}
	for _, r := range keep {
		kept[r.Namespace+"/"+dns.EndpointName(r.Kind, r.Name)] = true
	}
	slices.SortFunc(items, func(a, b unstructured.Unstructured) int {
		return strings.Compare(a.GetNamespace()+"/"+a.GetName(), b.GetNamespace()+"/"+b.GetName())
	})
	var gone []*unstructured.Unstructured
	var names []string
	for i := range items {
		obj := &items[i]
		if kept[obj.GetNamespace()+"/"+obj.GetName()] {
			continue
		}
		gone = append(gone, obj)
		if leftBecause(obj, "", opts.Spare) == "" {
			names = append(names, obj.GetNamespace()+"/"+obj.GetName())
		}
	}
	if opts.MaxDeletions != nil && len(names) > *opts.MaxDeletions {
		return nil, &TooManyError{Cluster: cluster, Count: len(names), Max: *opts.MaxDeletions, Endpoints: names}
	}
	var out []Removal
	var errs []error
	for _, obj := range gone {
		rem, err := remove(ctx, client, m, obj, "", opts.Spare, opts.DryRun)
		out = append(out, rem)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// DryRun says how Delete and Prune delete.
type DryRun int

const (
	// NoDryRun deletes.
	NoDryRun DryRun = iota
	// ClientDryRun decides what would be deleted and sends no deletion.
	ClientDryRun
	// ServerDryRun sends the deletions as a server-side dry run.
	ServerDryRun
)

// Delete deletes the DNSEndpoints of the records of in (fedctl delete), as
// Prune deletes: only those fedctl wrote for these records, each with a
// UID precondition. A record without one is not in the result.
func Delete(ctx context.Context, client members.Client, cluster string, in federation.DNS, dryRun DryRun) ([]Removal, error) {
	m, err := mapping(ctx, client, cluster)
	if err != nil {
		return nil, err
	}
	written, err := previous(ctx, client, m, in)
	if err != nil {
		return nil, err
	}
	var out []Removal
	var errs []error
	for _, r := range records(in) {
		obj := written[r.key()]
		if obj == nil {
			continue
		}
		rem, err := remove(ctx, client, m, obj, r.source(), nil, dryRun)
		out = append(out, rem)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// remove deletes obj, a DNSEndpoint fedctl wrote for the record source
// (any record when ""), and leaves any other.
func remove(ctx context.Context, client members.Client, m members.Mapping, obj *unstructured.Unstructured, source string, spare map[types.UID]bool, dryRun DryRun) (Removal, error) {
	rem := Removal{Namespace: obj.GetNamespace(), Name: obj.GetName(), Left: leftBecause(obj, source, spare), Object: obj}
	if rem.Left != "" || dryRun == ClientDryRun {
		return rem, nil
	}
	uid := obj.GetUID()
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
	if dryRun == ServerDryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	err := client.Delete(ctx, m, rem.Namespace, rem.Name, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		rem.Left = "delete failed"
		return rem, fmt.Errorf("DNSEndpoint %s/%s: %w", rem.Namespace, rem.Name, members.RequestErrorIn(ctx, err))
	}
	return rem, nil
}

// leftBecause says why obj, a DNSEndpoint, is not fedctl's to delete for
// the record source (any record when ""), or is to be spared; "" when it
// is to go.
func leftBecause(obj *unstructured.Unstructured, source string, spare map[types.UID]bool) string {
	got := obj.GetAnnotations()[federation.SourceAnnotation]
	switch {
	case spare[obj.GetUID()]:
		return "the very DNSEndpoint the input's DNS cluster holds (the same cluster under another name)"
	case obj.GetLabels()[federation.ManagedByLabel] != federation.ManagedByValue:
		return "not created by fedctl"
	case source != "" && got != source:
		return fmt.Sprintf("written for %s, not for this record", cmp.Or(got, "no record of fedctl's"))
	}
	return ""
}

// Deleted are the names ("namespace/name") of the removals that deleted,
// sorted.
func Deleted(rems []Removal) []string {
	var out []string
	for _, r := range rems {
		if r.Left == "" {
			out = append(out, r.Namespace+"/"+r.Name)
		}
	}
	slices.Sort(out)
	return out
}
