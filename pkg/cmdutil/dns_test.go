package cmdutil

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var endpointType = typeconfig.Type{Group: "externaldns.k8s.io", Version: "v1alpha1", Kind: dns.EndpointKind, Plural: "dnsendpoints", Scope: typeconfig.Namespaced}

// TestDNSClustersCheck: the recorded DNS clusters the input no longer
// names are stale while they hold the set's DNSEndpoints (but those the
// named cluster holds too), forgotten once they hold none or --dns-forget
// names them, and unchecked when they cannot be opened; each member's
// parent is read once, however many waves call Check; a named cluster that
// cannot be opened stops the run.
func TestDNSClustersCheck(t *testing.T) {
	t.Parallel()
	set := &propagate.ApplySet{Resource: "secrets", Name: "app", Namespace: "shop"}
	parentMapping := memberstest.MappingOf(typeconfig.Type{Version: "v1", Kind: "Secret", Plural: "secrets", Scope: typeconfig.Namespaced})
	memberFakes := map[string]*memberstest.Fake{}
	for _, m := range []string{"a", "b", "c"} {
		f := memberstest.New()
		parent := &unstructured.Unstructured{}
		parent.SetNamespace("shop")
		parent.SetName("app")
		parent.SetLabels(map[string]string{propagate.ApplySetIDLabel: set.ID()})
		parent.SetAnnotations(map[string]string{propagate.ApplySetDNSContextAnnotation: map[string]string{"a": "old,empty", "b": "old,gone,alias", "c": "forgotten"}[m]})
		f.Put(memberstest.KeyOf(parentMapping, "shop", "app"), parent)
		memberFakes[m] = f
	}
	endpoint := func(f *memberstest.Fake, name string, uid types.UID) {
		o := &unstructured.Unstructured{}
		o.SetNamespace("shop")
		o.SetName(name)
		o.SetUID(uid)
		o.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue, dnssync.SetLabel: set.ID()})
		f.Put(memberstest.KeyOf(memberstest.MappingOf(endpointType), "shop", name), o)
	}
	named, old, alias := memberstest.New(endpointType), memberstest.New(endpointType), memberstest.New(endpointType)
	endpoint(named, "service-web", "uid-web")
	endpoint(alias, "service-web", "uid-web") // the same object: alias is named under another name
	endpoint(old, "service-web", "uid-old")
	dnsFakes := map[string]*memberstest.Fake{"new": named, "old": old, "alias": alias, "empty": memberstest.New(endpointType), "forgotten": memberstest.New(endpointType)}
	opens := map[string]int{}
	open := func(cluster string) (*DNSTarget, error) {
		opens[cluster]++
		f, ok := dnsFakes[cluster]
		if !ok {
			return nil, errors.New("cluster " + cluster + " (DNS): context " + cluster + " not found")
		}
		return &DNSTarget{Cluster: cluster, Client: f}, nil
	}
	var errOut bytes.Buffer
	check := DNSCheck{ErrOut: &errOut, ColorScheme: (&iostreams.IOStreams{}).ErrColorScheme(), Set: set, Open: open, Forget: []string{"forgotten"},
		Clients: func(m string) (members.Client, error) { return memberFakes[m], nil }}

	where := DNSClusters{Cluster: "new"}
	require.NoError(t, where.Check(context.Background(), check, []string{"a"})) // a rollout's first wave
	assert.Equal(t, []string{"old"}, where.Stale)
	assert.Equal(t, []string{"new"}, set.DNSContexts)
	assert.ElementsMatch(t, []string{"forgotten", "empty"}, set.ForgetDNSContexts)
	assert.Contains(t, errOut.String(), "Secret shop/app still has 1 DNSEndpoints in cluster old")

	require.NoError(t, where.Check(context.Background(), check, []string{"a", "b", "c"})) // the later waves
	assert.Equal(t, []string{"old"}, where.Stale, "decided once")
	assert.ElementsMatch(t, []string{"forgotten", "empty", "alias"}, set.ForgetDNSContexts, "alias holds only what new holds")
	require.Contains(t, where.Unchecked, "gone")
	assert.Contains(t, where.Unchecked["gone"].Error(), "cluster gone (DNS): context gone not found (recorded on the parents of Secret shop/app in b)")
	assert.Contains(t, where.Unchecked["gone"].Error(), "--dns-forget gone")
	assert.Equal(t, 1, opens["old"], "each recorded cluster is checked once")
	for _, m := range []string{"a", "b", "c"} {
		n := 0
		for _, c := range memberFakes[m].Calls() {
			if c == "GET secrets app" {
				n++
			}
		}
		assert.Equal(t, 1, n, "member %s's parent is read once", m)
	}
	assert.NotContains(t, set.ForgetDNSContexts, "gone", "unchecked: it stays recorded")

	// --dns-forget of a cluster that answers and still holds the set's
	// DNSEndpoints: forgotten, as asked, but said
	endpoint(dnsFakes["forgotten"], "service-api", "uid-api")
	errOut.Reset()
	again := &propagate.ApplySet{Resource: "secrets", Name: "app", Namespace: "shop"}
	check.Set = again
	fresh := DNSClusters{Cluster: "new"}
	require.NoError(t, fresh.Check(context.Background(), check, []string{"c"}))
	assert.Contains(t, again.ForgetDNSContexts, "forgotten")
	assert.Contains(t, errOut.String(), "--dns-forget forgotten: the cluster answers and still holds 1 of the DNSEndpoints of Secret shop/app, which are now neither pruned nor recorded")
	// and never the cluster the input's Domain names
	check.Forget = []string{"new"}
	err := (&DNSClusters{Cluster: "new"}).Check(context.Background(), check, []string{"c"})
	var flagErr *FlagError
	require.ErrorAs(t, err, &flagErr)
	assert.Contains(t, err.Error(), "--dns-forget new: it is the DNS cluster the input's Domain names")

	other := &propagate.ApplySet{Resource: "secrets", Name: "app", Namespace: "shop"}
	nowhere := DNSClusters{Cluster: "nosuch"}
	err = nowhere.Check(context.Background(), DNSCheck{ErrOut: &errOut, ColorScheme: check.ColorScheme, Set: other, Open: open, Clients: check.Clients}, []string{"a"})
	require.Error(t, err, "a named cluster that cannot be opened stops the run before any write")
	assert.Empty(t, other.DNSContexts)
}

// TestDNSOpensEachClusterOnce: the run's checks, writes and prunes share
// one client per DNS cluster (and what it discovered), through one opener
// per federation; a cluster that cannot be opened is tried again.
func TestDNSOpensEachClusterOnce(t *testing.T) {
	t.Parallel()
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "dns"}, false))
	made := map[string]int{}
	newClient := func(_ members.Access, m members.Member) (members.Client, error) {
		made[m.Name]++
		if m.Name == "nosuch" {
			return nil, errors.New("context nosuch not found")
		}
		return memberstest.New(endpointType), nil
	}
	clients := NewMemberClients(func() (members.Access, error) { return members.Access{}, nil }, newClient, Tuning{})
	open := clients.DNS(fed)
	first, err := open("dns")
	require.NoError(t, err)
	again, err := clients.DNS(fed)("dns")
	require.NoError(t, err)
	assert.Same(t, first, again, "the same opener for the run")
	_, err = open("nosuch")
	assert.ErrorContains(t, err, "cluster nosuch (DNS): context nosuch not found")
	_, _ = open("nosuch")
	assert.Equal(t, map[string]int{"dns": 1, "nosuch": 2}, made)
}

// TestDNSFlagsValidate: --dns-forget only with --prune, and never for the
// cluster --dns-context names.
func TestDNSFlagsValidate(t *testing.T) {
	assert.NoError(t, (&DNSFlags{Forget: []string{"old"}}).Validate(true, nil))
	assert.ErrorContains(t, (&DNSFlags{Forget: []string{"old"}}).Validate(false, nil), "--dns-forget needs --prune")
	assert.ErrorContains(t, (&DNSFlags{Forget: []string{"old"}}).Validate(true, []string{"a"}), "--dns-forget cannot be used with --cluster")
	assert.ErrorContains(t, (&DNSFlags{Context: "dns", Forget: []string{"dns"}}).Validate(true, nil), "--dns-forget dns: it is the cluster --dns-context names")
	assert.ErrorContains(t, (&DNSFlags{Weights: "even"}).Validate(true, nil), `--dns-weights must be "replicas"`)
}

// TestDNSClustersCheckRetriesTheNamedCluster: a named cluster that cannot
// be listed at one wave leaves that wave's recorded clusters unchecked,
// but is read again at the next: a transient failure does not leave every
// later wave's recorded clusters unchecked too.
func TestDNSClustersCheckRetriesTheNamedCluster(t *testing.T) {
	t.Parallel()
	set := &propagate.ApplySet{Resource: "secrets", Name: "app", Namespace: "shop"}
	parentMapping := memberstest.MappingOf(typeconfig.Type{Version: "v1", Kind: "Secret", Plural: "secrets", Scope: typeconfig.Namespaced})
	memberFakes := map[string]*memberstest.Fake{}
	for m, recorded := range map[string]string{"a": "old1", "b": "old2"} {
		f := memberstest.New()
		parent := &unstructured.Unstructured{}
		parent.SetNamespace("shop")
		parent.SetName("app")
		parent.SetLabels(map[string]string{propagate.ApplySetIDLabel: set.ID()})
		parent.SetAnnotations(map[string]string{propagate.ApplySetDNSContextAnnotation: recorded})
		f.Put(memberstest.KeyOf(parentMapping, "shop", "app"), parent)
		memberFakes[m] = f
	}
	named := memberstest.New(endpointType)
	failing := true
	named.ListErr = func(string) error {
		if failing {
			return errors.New("connection reset")
		}
		return nil
	}
	dnsFakes := map[string]*memberstest.Fake{"new": named, "old1": memberstest.New(endpointType), "old2": memberstest.New(endpointType)}
	open := func(cluster string) (*DNSTarget, error) {
		return &DNSTarget{Cluster: cluster, Client: dnsFakes[cluster]}, nil
	}
	var errOut bytes.Buffer
	check := DNSCheck{ErrOut: &errOut, ColorScheme: (&iostreams.IOStreams{}).ErrColorScheme(), Set: set, Open: open,
		Clients: func(m string) (members.Client, error) { return memberFakes[m], nil }}

	where := DNSClusters{Cluster: "new"}
	require.NoError(t, where.Check(context.Background(), check, []string{"a"}))
	require.Contains(t, where.Unchecked, "old1", "new could not be listed at the first wave")
	assert.Contains(t, where.Unchecked["old1"].Error(), "connection reset")

	failing = false
	require.NoError(t, where.Check(context.Background(), check, []string{"b"}))
	assert.NotContains(t, where.Unchecked, "old2", "read again at the next wave")
	assert.Contains(t, set.ForgetDNSContexts, "old2", "old2 holds none of the set's DNSEndpoints")
}
