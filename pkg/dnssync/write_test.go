package dnssync

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var endpointType = typeconfig.Type{Group: "externaldns.k8s.io", Version: "v1alpha1", Kind: dns.EndpointKind, Plural: "dnsendpoints", Scope: typeconfig.Namespaced}

// record is the Record of the Service record ns/name, pointing name at ip.
func testRecord(ns, name, ip string) dns.Record {
	// a float64, as the records are made through encoding/json
	eps := []any{map[string]any{"dnsName": name + ".example.com", "recordTTL": float64(60), "recordType": "A", "targets": []any{ip}}}
	return dns.Record{Kind: "Service", Namespace: ns, Name: name, Object: map[string]any{
		"apiVersion": dns.EndpointAPIVersion, "kind": dns.EndpointKind,
		"metadata": map[string]any{
			"name": dns.EndpointName("Service", name), "namespace": ns,
			"labels":      map[string]any{federation.ManagedByLabel: federation.ManagedByValue},
			"annotations": map[string]any{federation.SourceAnnotation: "ServiceDNSRecord/" + ns + "/" + name},
		},
		"spec": map[string]any{"endpoints": eps},
	}}
}

func key(ns, name string) memberstest.Key {
	return memberstest.KeyOf(memberstest.MappingOf(endpointType), ns, name)
}

// put stores obj with a UID, as the API server would.
func put(f *memberstest.Fake, obj map[string]any) {
	u := &unstructured.Unstructured{Object: obj}
	u = u.DeepCopy()
	u.SetUID(types.UID("uid-" + u.GetName()))
	f.Put(key(u.GetNamespace(), u.GetName()), u)
}

func dnsOf(recs ...dns.Record) federation.DNS {
	var d federation.DNS
	for _, r := range recs {
		rec := &federation.ServiceDNSRecord{}
		rec.Namespace, rec.Name = r.Namespace, r.Name
		d.Services = append(d.Services, rec)
	}
	return d
}

// TestWriteLeavesUpToDateEndpoints: a second write of the same records
// sends nothing; a changed target, a label fedctl wants or the set label
// coming or going is written again.
func TestWriteLeavesUpToDateEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := memberstest.New(endpointType)
	recs := []dns.Record{testRecord("shop", "web", "192.0.2.1"), testRecord("shop", "api", "192.0.2.2")}
	opts := WriteOptions{FieldManager: "fedctl"}

	written, err := Previous(ctx, f, "dns", dnsOf(recs...))
	require.NoError(t, err)
	assert.Empty(t, written, "nothing there yet")
	res, err := Write(ctx, f, "dns", recs, written, opts)
	require.NoError(t, err)
	assert.Equal(t, WriteResult{Applied: 2}, res)

	for _, name := range []string{"service-web", "service-api"} {
		// the API server's numbers are int64
		live := f.Object(key("shop", name))
		eps, _, _ := unstructured.NestedSlice(live.Object, "spec", "endpoints")
		eps[0].(map[string]any)["recordTTL"] = int64(60)
		require.NoError(t, unstructured.SetNestedSlice(live.Object, eps, "spec", "endpoints"))
		f.Put(key("shop", name), live)
	}
	written, err = Previous(ctx, f, "dns", dnsOf(recs...))
	require.NoError(t, err)
	require.Len(t, written, 2)
	f.ClearCalls()
	res, err = Write(ctx, f, "dns", recs, written, opts)
	require.NoError(t, err)
	assert.Equal(t, WriteResult{Unchanged: 2}, res)
	assert.Empty(t, f.Writes(), "an apply where nothing changed writes nothing")

	// someone else's label on the live object does not count
	live := f.Object(key("shop", "service-web"))
	live.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue, "team": "a"})
	f.Put(key("shop", "service-web"), live)
	written, _ = Previous(ctx, f, "dns", dnsOf(recs...))
	res, _ = Write(ctx, f, "dns", recs, written, opts)
	assert.Equal(t, WriteResult{Unchanged: 2}, res)

	changed := []dns.Record{testRecord("shop", "web", "192.0.2.9"), recs[1]}
	res, _ = Write(ctx, f, "dns", changed, written, opts)
	assert.Equal(t, WriteResult{Applied: 1, Unchanged: 1}, res, "a changed target")

	written, _ = Previous(ctx, f, "dns", dnsOf(recs...))
	inSet := opts
	inSet.Set = "applyset-abc-v1"
	res, _ = Write(ctx, f, "dns", changed, written, inSet)
	assert.Equal(t, WriteResult{Applied: 2}, res, "into the set")
	assert.Equal(t, "applyset-abc-v1", f.Object(key("shop", "service-api")).GetLabels()[SetLabel])
	assert.NotContains(t, recs[1].Object["metadata"].(map[string]any)["labels"], SetLabel, "the record is not changed")

	written, _ = Previous(ctx, f, "dns", dnsOf(recs...))
	res, _ = Write(ctx, f, "dns", changed, written, opts)
	assert.Equal(t, WriteResult{Applied: 2}, res, "out of the set: the label must go")
}

// TestWriteDryRuns: a client dry run counts what would be applied and
// sends nothing; a server dry run sends dry-run applies, which change
// nothing.
func TestWriteDryRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := memberstest.New(endpointType)
	web := testRecord("shop", "web", "192.0.2.1")
	_, err := Write(ctx, f, "dns", []dns.Record{web}, nil, WriteOptions{FieldManager: "fedctl"})
	require.NoError(t, err)
	written, err := Previous(ctx, f, "dns", dnsOf(web))
	require.NoError(t, err)
	before := f.Object(key("shop", "service-web"))

	recs := []dns.Record{testRecord("shop", "web", "192.0.2.9"), testRecord("shop", "api", "192.0.2.2")}
	f.ClearCalls()
	res, err := Write(ctx, f, "dns", recs, written, WriteOptions{FieldManager: "fedctl", DryRun: ClientDryRun})
	require.NoError(t, err)
	assert.Equal(t, WriteResult{Applied: 2}, res)
	assert.Empty(t, f.Writes(), "a client dry run sends nothing")

	res, err = Write(ctx, f, "dns", recs, written, WriteOptions{FieldManager: "fedctl", DryRun: ServerDryRun})
	require.NoError(t, err)
	assert.Equal(t, WriteResult{Applied: 2}, res)
	assert.Len(t, f.Writes(), 2, "a server dry run sends each apply")
	assert.Equal(t, before, f.Object(key("shop", "service-web")), "as a dry run")
	assert.False(t, f.Has(key("shop", "service-api")), "as a dry run")
}

// TestPrune: only the set's DNSEndpoints whose records left go, only those
// fedctl wrote, each with a UID precondition; a list that fails deletes
// nothing; a client dry run sends nothing.
func TestPrune(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const set = "applyset-abc-v1"
	setup := func() *memberstest.Fake {
		f := memberstest.New(endpointType)
		for _, name := range []string{"web", "old"} {
			r := testRecord("shop", name, "192.0.2.1")
			r.Object["metadata"].(map[string]any)["labels"].(map[string]any)[SetLabel] = set
			put(f, r.Object)
		}
		other := testRecord("shop", "other-app", "192.0.2.3") // not in the set
		put(f, other.Object)
		foreign := testRecord("shop", "foreign", "192.0.2.4")
		foreign.Object["metadata"].(map[string]any)["labels"] = map[string]any{SetLabel: set}
		put(f, foreign.Object)
		return f
	}
	keep := []dns.Record{testRecord("shop", "web", "192.0.2.1")}

	f := setup()
	rems, err := Prune(ctx, f, "dns", set, keep, PruneOptions{})
	require.NoError(t, err)
	assert.Equal(t, []Removal{
		{Namespace: "shop", Name: "service-foreign", Left: "not created by fedctl"},
		{Namespace: "shop", Name: "service-old"},
	}, bare(t, rems))
	assert.Equal(t, []string{"shop/service-old"}, Deleted(rems))
	assert.False(t, f.Has(key("shop", "service-old")))
	for _, name := range []string{"service-web", "service-other-app", "service-foreign"} {
		assert.True(t, f.Has(key("shop", name)), name)
	}

	f = setup()
	rems, err = Prune(ctx, f, "dns", set, keep, PruneOptions{DryRun: ClientDryRun})
	require.NoError(t, err)
	assert.Equal(t, []string{"shop/service-old"}, Deleted(rems))
	assert.Empty(t, f.Writes())

	f = setup()
	f.ListErr = func(string) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "dnsendpoints"}, "", nil)
	}
	rems, err = Prune(ctx, f, "dns", set, keep, PruneOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nothing was pruned there")
	assert.Empty(t, rems)
	assert.Empty(t, f.Writes(), "never delete on partial knowledge")

	// --max-deletions counts what would be deleted: service-old alone, as
	// the foreign one is left
	f = setup()
	f.ClearCalls()
	zero, one := 0, 1
	rems, err = Prune(ctx, f, "dns", set, keep, PruneOptions{MaxDeletions: &zero})
	var tooMany *TooManyError
	require.ErrorAs(t, err, &tooMany)
	assert.Equal(t, TooManyError{Cluster: "dns", Count: 1, Max: 0, Endpoints: []string{"shop/service-old"}}, *tooMany)
	assert.Contains(t, err.Error(), "raise --max-deletions")
	assert.Empty(t, rems)
	assert.Empty(t, f.Writes(), "past the bound, nothing is deleted")
	rems, err = Prune(ctx, f, "dns", set, keep, PruneOptions{MaxDeletions: &one})
	require.NoError(t, err)
	assert.Equal(t, []string{"shop/service-old"}, Deleted(rems))

	f = memberstest.New()
	rems, err = Prune(ctx, f, "dns", set, nil, PruneOptions{})
	assert.NoError(t, err, "a cluster that does not serve DNSEndpoints holds none")
	assert.Empty(t, rems)
	assert.Empty(t, f.Writes())
}

// TestDelete: fedctl delete removes the DNSEndpoints fedctl wrote for the
// input's records and leaves one another record, or someone else, wrote
// under the name.
func TestDelete(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := memberstest.New(endpointType)
	web, api, cart := testRecord("shop", "web", "192.0.2.1"), testRecord("shop", "api", "192.0.2.2"), testRecord("shop", "cart", "192.0.2.3")
	put(f, web.Object)
	apiObj := (&unstructured.Unstructured{Object: api.Object}).DeepCopy()
	apiObj.SetAnnotations(map[string]string{federation.SourceAnnotation: "ServiceDNSRecord/other/api"})
	put(f, apiObj.Object)
	cartObj := (&unstructured.Unstructured{Object: cart.Object}).DeepCopy()
	cartObj.SetLabels(nil)
	put(f, cartObj.Object)
	gone := testRecord("shop", "gone", "192.0.2.5") // never written

	in := dnsOf(web, api, cart, gone)
	rems, err := Delete(ctx, f, "dns", in, ServerDryRun)
	require.NoError(t, err)
	assert.Equal(t, []string{"shop/service-web"}, Deleted(rems))
	assert.True(t, f.Has(key("shop", "service-web")), "a server dry run deletes nothing")

	rems, err = Delete(ctx, f, "dns", in, NoDryRun)
	require.NoError(t, err)
	assert.ElementsMatch(t, []Removal{
		{Namespace: "shop", Name: "service-web"},
		{Namespace: "shop", Name: "service-api", Left: "written for ServiceDNSRecord/other/api, not for this record"},
		{Namespace: "shop", Name: "service-cart", Left: "not created by fedctl"},
	}, bare(t, rems))
	assert.False(t, f.Has(key("shop", "service-web")))
	assert.True(t, f.Has(key("shop", "service-api")))
	assert.True(t, f.Has(key("shop", "service-cart")))
	for _, c := range f.Writes() {
		assert.NotContains(t, c, "service-gone", "a record with no DNSEndpoint is only read")
	}
}

// bare is rems without their Objects, once each is checked to be the
// DNSEndpoint it names.
func bare(t *testing.T, rems []Removal) []Removal {
	t.Helper()
	out := make([]Removal, 0, len(rems))
	for _, r := range rems {
		if assert.NotNil(t, r.Object, r.Name) {
			assert.Equal(t, r.Namespace+"/"+r.Name, r.Object.GetNamespace()+"/"+r.Object.GetName())
		}
		r.Object = nil
		out = append(out, r)
	}
	return out
}

// TestCompare: what Write would change, and only that: a record whose
// DNSEndpoint is up to date is left out, a changed one comes with its live
// object and a dry run of the new one, a new one with no live object; the
// DNS cluster is not changed.
func TestCompare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := memberstest.New(endpointType)
	web, api := testRecord("shop", "web", "192.0.2.1"), testRecord("shop", "api", "192.0.2.2")
	_, err := Write(ctx, f, "dns", []dns.Record{web, api}, nil, WriteOptions{FieldManager: "fedctl"})
	require.NoError(t, err)
	recs := []dns.Record{web, testRecord("shop", "api", "192.0.2.9"), testRecord("shop", "cart", "192.0.2.3")}
	written, err := Previous(ctx, f, "dns", dnsOf(recs...))
	require.NoError(t, err)
	// unchanged, as far as JSON goes (the API server's int64)
	live := f.Object(key("shop", "service-web"))
	eps, _, _ := unstructured.NestedSlice(live.Object, "spec", "endpoints")
	eps[0].(map[string]any)["recordTTL"] = int64(60)
	require.NoError(t, unstructured.SetNestedSlice(written["Service/shop/web"].Object, eps, "spec", "endpoints"))
	f.ClearCalls()

	got, err := Compare(ctx, f, "dns", recs, written, WriteOptions{FieldManager: "fedctl"})
	require.NoError(t, err)
	require.Len(t, got, 2, "web is up to date")
	assert.Equal(t, "service-api", got[0].Live.GetName())
	targets, _, _ := unstructured.NestedSlice(got[0].Merged.Object, "spec", "endpoints")
	assert.Equal(t, []any{"192.0.2.9"}, targets[0].(map[string]any)["targets"])
	assert.Nil(t, got[1].Live, "cart has no DNSEndpoint yet")
	assert.Equal(t, "service-cart", got[1].Merged.GetName())
	assert.Len(t, f.Writes(), 2, "a dry-run apply each")
	assert.False(t, f.Has(key("shop", "service-cart")), "dry runs")
	apiTargets, _, _ := unstructured.NestedSlice(f.Object(key("shop", "service-api")).Object, "spec", "endpoints")
	assert.Equal(t, []any{"192.0.2.2"}, apiTargets[0].(map[string]any)["targets"], "dry runs")
}

// TestCompareNewNamespace: a DNSEndpoint whose namespace is not in the DNS
// cluster yet shows as added only when the run places that namespace
// there, as Write's server dry run takes it; any other missing namespace
// is an error in both, as the real apply would fail on it.
func TestCompareNewNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := memberstest.New(endpointType)
	f.ApplyErr = func(obj *unstructured.Unstructured, _ int) error {
		return apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, obj.GetNamespace())
	}
	recs := []dns.Record{testRecord("shop", "web", "192.0.2.1")}
	placed := WriteOptions{FieldManager: "fedctl", PlacedNamespaces: map[string]bool{"shop": true}}

	got, err := Compare(ctx, f, "dns", recs, nil, placed)
	require.NoError(t, err)
	require.Len(t, got, 1)
	assert.Equal(t, "service-web", got[0].Merged.GetName())
	_, err = Compare(ctx, f, "dns", recs, nil, WriteOptions{FieldManager: "fedctl"})
	assert.ErrorContains(t, err, `namespaces "shop" not found`, "not placed by the run: apply would fail")

	placed.DryRun = ServerDryRun
	_, err = Write(ctx, f, "dns", recs, nil, placed)
	assert.NoError(t, err)
	_, err = Write(ctx, f, "dns", recs, nil, WriteOptions{FieldManager: "fedctl", DryRun: ServerDryRun})
	assert.Error(t, err)
}

// TestPruneSpares: a DNSEndpoint whose UID is spared (the same object the
// cluster the input names holds) is left, and said so; SetUIDs lists the
// set's.
func TestPruneSpares(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const set = "applyset-abc-v1"
	f := memberstest.New(endpointType)
	for _, name := range []string{"web", "api"} {
		r := testRecord("shop", name, "192.0.2.1")
		r.Object["metadata"].(map[string]any)["labels"].(map[string]any)[SetLabel] = set
		put(f, r.Object)
	}
	put(f, testRecord("shop", "other", "192.0.2.3").Object) // not in the set
	uids, err := SetUIDs(ctx, f, "dns", set)
	require.NoError(t, err)
	assert.Equal(t, map[types.UID]bool{"uid-service-web": true, "uid-service-api": true}, uids)

	rems, err := Prune(ctx, f, "dns", set, nil, PruneOptions{Spare: map[types.UID]bool{"uid-service-web": true}})
	require.NoError(t, err)
	assert.Equal(t, []Removal{
		{Namespace: "shop", Name: "service-api"},
		{Namespace: "shop", Name: "service-web", Left: "the very DNSEndpoint the input's DNS cluster holds (the same cluster under another name)"},
	}, bare(t, rems))
	assert.True(t, f.Has(key("shop", "service-web")))
	assert.False(t, f.Has(key("shop", "service-api")))

	uids, err = SetUIDs(ctx, memberstest.New(), "dns", set)
	require.NoError(t, err)
	assert.Empty(t, uids, "a cluster without the CRD holds none")
}

// TestWriteClaims: a DNSEndpoint under a record's name that fedctl did not
// write is left as it is and named, unless Adopt (apply --adopt); so is one
// marked kubefed.io/managed: "false", and one of another ApplySet, whose
// prune would lose it. The other records are written all the same.
func TestWriteClaims(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := memberstest.New(endpointType)
	theirs := testRecord("shop", "web", "203.0.113.7").Object
	delete(theirs["metadata"].(map[string]any), "labels")
	put(f, theirs)
	recs := []dns.Record{testRecord("shop", "web", "192.0.2.1"), testRecord("shop", "api", "192.0.2.2")}
	written, err := Previous(ctx, f, "dns", dnsOf(recs...))
	require.NoError(t, err)
	res, err := Write(ctx, f, "dns", recs, written, WriteOptions{FieldManager: "fedctl"})
	require.ErrorContains(t, err, "DNSEndpoint shop/service-web: exists and was not written by fedctl")
	assert.Equal(t, WriteResult{Applied: 1}, res, "the other record is written")
	assert.Empty(t, f.Object(key("shop", "service-web")).GetLabels(), "left as it is")
	compared, err := Compare(ctx, f, "dns", recs[:1], written, WriteOptions{FieldManager: "fedctl"})
	require.ErrorContains(t, err, "not written by fedctl", "diff says the same")
	assert.Empty(t, compared)

	res, err = Write(ctx, f, "dns", recs[:1], written, WriteOptions{FieldManager: "fedctl", Adopt: true})
	require.NoError(t, err)
	assert.Equal(t, WriteResult{Applied: 1}, res, "taken over with --adopt")

	other := f.Object(key("shop", "service-web"))
	other.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue, SetLabel: "applyset-other-v1"})
	f.Put(key("shop", "service-web"), other)
	written, _ = Previous(ctx, f, "dns", dnsOf(recs...))
	_, err = Write(ctx, f, "dns", recs[:1], written, WriteOptions{FieldManager: "fedctl", Set: "applyset-mine-v1"})
	require.ErrorContains(t, err, "belongs to another ApplySet (fedctl.io/dns-applyset=applyset-other-v1)")

	other.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue, federation.ManagedLabel: "false"})
	f.Put(key("shop", "service-web"), other)
	written, _ = Previous(ctx, f, "dns", dnsOf(recs...))
	_, err = Write(ctx, f, "dns", recs[:1], written, WriteOptions{FieldManager: "fedctl", Adopt: true})
	require.ErrorContains(t, err, `labelled kubefed.io/managed: "false"`)
}
