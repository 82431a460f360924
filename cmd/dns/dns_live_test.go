package dns

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/cmd/apply"
	deletecmd "github.com/fedctl/fedctl/cmd/delete"
	diffcmd "github.com/fedctl/fedctl/cmd/diff"
	explaincmd "github.com/fedctl/fedctl/cmd/explain"
	statuscmd "github.com/fedctl/fedctl/cmd/status"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

var (
	services     = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	dnsEndpoints = schema.GroupVersionResource{Group: "externaldns.k8s.io", Version: "v1alpha1", Resource: "dnsendpoints"}
	crds         = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
)

const federationFile = `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- {name: cluster1, region: eu-west-1, zones: [eu-west-1a]}
- {name: cluster2, region: eu-west-1, zones: [eu-west-1b]}
- {name: cluster3, region: us-east-1, zones: [us-east-1a]}
types: []
`

// app: a Deployment split by an RSP (weights 1/2/2 of total, rebalanced,
// so that a new total splits anew), a Service
// of type LoadBalancer selecting its pods, a Domain whose DNSEndpoints go to
// cluster1, and a ServiceDNSRecord for the Service.
func app(ns string, total int, weighting string) string {
	return fmt.Sprintf(`apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: Domain
metadata: {name: example}
domain: example.com
spec: {context: cluster1}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %[1]s, namespace: %[1]s}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: %[1]s}
spec:
  template:
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: %[1]s}
spec:
  targetKind: FederatedDeployment
  totalReplicas: %[2]d
  rebalance: true
  clusters: {cluster1: {weight: 1}, cluster2: {weight: 2}, cluster3: {weight: 2}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: web, namespace: %[1]s}
spec:
  template: {spec: {type: LoadBalancer, selector: {app: web}, ports: [{port: 80}]}}
  placement: {clusterSelector: {}}
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: web, namespace: %[1]s}
spec:
  domainRef: example
%[3]s`, ns, total, weighting)
}

type workspace struct{ dir, fedPath, kubeconfig string }

func newWorkspace(t *testing.T, manifests string) *workspace {
	t.Helper()
	testenv.Require(t, env)
	w := &workspace{dir: t.TempDir(), kubeconfig: env.Kubeconfig}
	w.fedPath = filepath.Join(w.dir, "federation.yaml")
	require.NoError(t, os.WriteFile(w.fedPath, []byte(federationFile), 0o600))
	w.write(t, manifests)
	installCRD(t)
	return w
}

func (w *workspace) write(t *testing.T, manifests string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(w.dir, "app"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "app", "app.yaml"), []byte(manifests), 0o600))
}

// run runs the command newCmd makes with -f app/ and args against the
// workspace, and returns its standard output and error.
func (w *workspace) run(t *testing.T, newCmd func(*cmdutil.Factory) *cobra.Command, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	cmd := newCmd(&cmdutil.Factory{
		IOStreams:  ios,
		Federation: func() (*members.File, error) { return members.Load(w.fedPath) },
		Access:     func() (members.Access, error) { return members.Access{Kubeconfig: w.kubeconfig}, nil },
	})
	cmd.SetArgs(append([]string{"-f", filepath.Join(w.dir, "app")}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	t.Logf("fedctl %s %v\nstdout:\n%s\nstderr:\n%s", cmd.Name(), args, out, errOut)
	return out.String(), errOut.String(), err
}

func (w *workspace) apply(t *testing.T, args ...string) (string, error) {
	t.Helper()
	_, errOut, err := w.run(t, func(f *cmdutil.Factory) *cobra.Command { return apply.NewCmdApply(f, nil) }, args...)
	return errOut, err
}

func (w *workspace) dns(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return w.run(t, func(f *cmdutil.Factory) *cobra.Command { return NewCmdDNS(f, nil) }, args...)
}

// installCRD creates ExternalDNS's DNSEndpoint CRD in cluster1 (where
// ExternalDNS would run) and waits until it is served.
func installCRD(t *testing.T) {
	t.Helper()
	installCRDIn(t, "cluster1")
}

// installCRDIn creates ExternalDNS's DNSEndpoint CRD in cluster and waits
// until it is served.
func installCRDIn(t *testing.T, cluster string) {
	t.Helper()
	data, err := os.ReadFile("../../testdata/crds/dnsendpoint.yaml")
	require.NoError(t, err)
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal(data, &obj))
	u := &unstructured.Unstructured{Object: obj}
	_, err = env.Dynamic(t, cluster).Resource(crds).Apply(context.Background(), u.GetName(), u, metav1.ApplyOptions{FieldManager: "test", Force: true})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := env.Dynamic(t, cluster).Resource(dnsEndpoints).Namespace("default").List(context.Background(), metav1.ListOptions{})
		return err == nil
	}, 20*time.Second, 200*time.Millisecond)
}

// serve applies the app, waits until its pods are ready in every member,
// and gives the Service in each member of lbs the load balancer IP lbs
// names, as a cloud controller would.
func (w *workspace) serve(t *testing.T, ns string, lbs map[string]string) {
	t.Helper()
	_, err := w.apply(t, "--wait")
	require.NoError(t, err)
	waitReady(t, ns)
	for cluster, ip := range lbs {
		setLB(t, cluster, ns, ip)
	}
}

// setLB sets a Service's status.loadBalancer as a cloud controller would.
func setLB(t *testing.T, cluster, ns string, ips ...string) {
	t.Helper()
	ingress := make([]any, 0, len(ips))
	for _, ip := range ips {
		ingress = append(ingress, map[string]any{"ip": ip})
	}
	patch := fmt.Sprintf(`{"status":{"loadBalancer":{"ingress":%s}}}`, mustJSON(ingress))
	_, err := env.Dynamic(t, cluster).Resource(services).Namespace(ns).Patch(context.Background(), "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status")
	require.NoError(t, err)
}

func mustJSON(v any) string {
	data, _ := yaml.Marshal(v)
	j, _ := yaml.YAMLToJSON(data)
	return string(j)
}

type endpoint struct {
	DNSName          string   `json:"dnsName"`
	RecordType       string   `json:"recordType"`
	SetIdentifier    string   `json:"setIdentifier"`
	Targets          []string `json:"targets"`
	ProviderSpecific []struct {
		Name, Value string
	} `json:"providerSpecific"`
}

// endpoints reads the DNSEndpoint service-web in cluster1, as "NAME TYPE
// [SETID=WEIGHT] TARGETS" lines.
func endpoints(t *testing.T, ns string) []string {
	t.Helper()
	obj, err := env.Dynamic(t, "cluster1").Resource(dnsEndpoints).Namespace(ns).Get(context.Background(), "service-web", metav1.GetOptions{})
	require.NoError(t, err)
	list, _, _ := unstructured.NestedSlice(obj.Object, "spec", "endpoints")
	var out []string
	for _, e := range list {
		data, _ := yaml.Marshal(e)
		var ep endpoint
		require.NoError(t, yaml.Unmarshal(data, &ep))
		line := strings.TrimSuffix(ep.DNSName, ".example.com") + " " + ep.RecordType
		if ep.SetIdentifier != "" {
			line += " " + ep.SetIdentifier
			for _, p := range ep.ProviderSpecific {
				line += "=" + p.Value
			}
		}
		out = append(out, line+" "+strings.Join(ep.Targets, ","))
	}
	return out
}

// waitEndpoints waits until the Service has ready endpoints in the
// members, so that its load balancers count.
func waitReady(t *testing.T, ns string) {
	t.Helper()
	require.Eventually(t, func() bool {
		for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
			list, err := env.Dynamic(t, c).Resource(schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}).Namespace(ns).
				List(context.Background(), metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=web"})
			if err != nil || len(list.Items) == 0 {
				return false
			}
			eps, _, _ := unstructured.NestedSlice(list.Items[0].Object, "endpoints")
			if len(eps) == 0 {
				return false
			}
		}
		return true
	}, 60*time.Second, 300*time.Millisecond, "ready endpoints in every member")
}

// TestDNSRecords: load balancers in two members give the global and
// region names two targets and the third member's zone a CNAME; clearing
// one member's load balancer withdraws its targets on the next apply.
func TestDNSRecords(t *testing.T) {
	const ns = "dns-records"
	w := newWorkspace(t, app(ns, 5, ""))
	w.serve(t, ns, map[string]string{"cluster1": "192.0.2.1", "cluster3": "198.51.100.3"})

	out, _, err := w.dns(t)
	require.NoError(t, err)
	assert.Contains(t, out, "kind: DNSEndpoint")
	assert.Contains(t, out, "dnsName: web.dns-records.example.svc.example.com")
	why, _, err := w.dns(t, "--why")
	require.NoError(t, err)
	assert.Contains(t, why, "cluster2 (region eu-west-1, zones eu-west-1b): no targets: the Service has no load balancer in status.loadBalancer")
	assert.Contains(t, why, "cluster1 (region eu-west-1, zones eu-west-1a): 192.0.2.1: the Service's load balancer")

	errOut, err := w.apply(t)
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: 1 DNSEndpoints (6 names) applied in cluster cluster1")
	assert.ElementsMatch(t, []string{
		"web.dns-records.example.svc A 192.0.2.1,198.51.100.3",
		"web.dns-records.example.svc.eu-west-1 A 192.0.2.1",
		"web.dns-records.example.svc.eu-west-1a.eu-west-1 A 192.0.2.1",
		"web.dns-records.example.svc.eu-west-1b.eu-west-1 CNAME web.dns-records.example.svc.eu-west-1.example.com",
		"web.dns-records.example.svc.us-east-1 A 198.51.100.3",
		"web.dns-records.example.svc.us-east-1a.us-east-1 A 198.51.100.3",
	}, endpoints(t, ns))

	// status and explain --live say what each member gives, and why
	out, _, err = w.run(t, func(f *cmdutil.Factory) *cobra.Command { return statuscmd.NewCmdStatus(f, nil) })
	require.NoError(t, err)
	assert.Regexp(t, `NAMESPACE\s+RECORD\s+MEMBER\s+TARGETS\s+WEIGHT\s+WHY\n`, out)
	assert.Regexp(t, `dns-records\s+servicednsrecord/web\s+cluster1\s+192.0.2.1\s+-\s+the Service's load balancer`, out)
	assert.Regexp(t, `dns-records\s+servicednsrecord/web\s+cluster2\s+<none>\s+-\s+the Service has no load balancer`, out)
	out, _, err = w.run(t, func(f *cmdutil.Factory) *cobra.Command { return statuscmd.NewCmdStatus(f, nil) }, "--no-headers")
	require.NoError(t, err)
	assert.NotContains(t, out, "RECORD", "--no-headers: the objects' rows alone, for scripts")
	assert.NotContains(t, out, "servicednsrecord/web")
	assert.Contains(t, out, "Deployment")
	out, _, err = w.run(t, func(f *cmdutil.Factory) *cobra.Command { return explaincmd.NewCmdExplain(f, nil) }, "--live", "service/web")
	require.NoError(t, err)
	assert.Contains(t, out, "DNS records (from what the members say now):")
	assert.Contains(t, out, "cluster3 (region us-east-1, zones us-east-1a): 198.51.100.3: the Service's load balancer")

	setLB(t, "cluster3", ns)
	_, err = w.apply(t)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{
		"web.dns-records.example.svc A 192.0.2.1",
		"web.dns-records.example.svc.eu-west-1 A 192.0.2.1",
		"web.dns-records.example.svc.eu-west-1a.eu-west-1 A 192.0.2.1",
		"web.dns-records.example.svc.eu-west-1b.eu-west-1 CNAME web.dns-records.example.svc.eu-west-1.example.com",
		"web.dns-records.example.svc.us-east-1 CNAME web.dns-records.example.svc.example.com",
		"web.dns-records.example.svc.us-east-1a.us-east-1 CNAME web.dns-records.example.svc.us-east-1.example.com",
	}, endpoints(t, ns), "cluster3's targets went with its load balancer; its names fall back to the level above")
}

// TestDNSWeights: weighted by the replica split, 3/6/6, then 2/4/4 when
// the preference's total changes.
func TestDNSWeights(t *testing.T) {
	const ns = "dns-weights"
	w := newWorkspace(t, app(ns, 15, "  weighting: replicas\n"))
	w.serve(t, ns, map[string]string{"cluster1": "192.0.2.1", "cluster2": "192.0.2.2", "cluster3": "198.51.100.3"})
	_, err := w.apply(t)
	require.NoError(t, err)
	global := func() []string {
		var out []string
		for _, l := range endpoints(t, ns) {
			if strings.HasPrefix(l, "web.dns-weights.example.svc A") {
				out = append(out, l)
			}
		}
		return out
	}
	assert.Equal(t, []string{
		"web.dns-weights.example.svc A cluster1=3 192.0.2.1",
		"web.dns-weights.example.svc A cluster2=6 192.0.2.2",
		"web.dns-weights.example.svc A cluster3=6 198.51.100.3",
	}, global())

	w.write(t, app(ns, 10, "  weighting: replicas\n"))
	_, err = w.apply(t, "--wait")
	require.NoError(t, err)
	assert.Equal(t, []string{
		"web.dns-weights.example.svc A cluster1=2 192.0.2.1",
		"web.dns-weights.example.svc A cluster2=4 192.0.2.2",
		"web.dns-weights.example.svc A cluster3=4 198.51.100.3",
	}, global(), "the weights follow the split")

	// --cluster renders one member's plan only: the DNS step is left out,
	// not written with every other member's weight at 0
	w.write(t, app(ns, 20, "  weighting: replicas\n"))
	errOut, err := w.apply(t, "--cluster", "cluster1")
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS records: not written, as --cluster applies to some members only")
	assert.Equal(t, []string{
		"web.dns-weights.example.svc A cluster1=2 192.0.2.1",
		"web.dns-weights.example.svc A cluster2=4 192.0.2.2",
		"web.dns-weights.example.svc A cluster3=4 198.51.100.3",
	}, global(), "the DNSEndpoint is as the last full apply wrote it")
}

// TestDNSMemberDown: a member that cannot be read keeps the targets of the
// last apply and the run exits 3; --dns-withdraw-unreachable withdraws
// them.
func TestDNSMemberDown(t *testing.T) {
	const ns = "dns-down"
	w := newWorkspace(t, app(ns, 5, ""))
	w.serve(t, ns, map[string]string{"cluster1": "192.0.2.1", "cluster3": "198.51.100.3"})
	_, err := w.apply(t)
	require.NoError(t, err)

	// context cluster3 (whose cluster entry has its name) now reaches a
	// server that refuses connections
	w.kubeconfig = env.KubeconfigVia(t, "cluster3", "cluster3", fmt.Sprintf("https://127.0.0.1:%d", testenv.ClosedPort(t)))

	errOut, err := w.apply(t, "--timeout", "2s")
	require.Error(t, err)
	var partial *cmdutil.PartialError
	require.True(t, errors.As(err, &partial), "%v", err)
	assert.Contains(t, partial.Failed, "cluster3")
	assert.Contains(t, errOut, "member cluster3 could not be read: keeps the targets of the last apply")
	assert.Contains(t, endpoints(t, ns), "web.dns-down.example.svc A 192.0.2.1,198.51.100.3", "never withdraw on one failed read")

	_, err = w.apply(t, "--timeout", "2s", "--dns-withdraw-unreachable")
	require.Error(t, err)
	assert.Contains(t, endpoints(t, ns), "web.dns-down.example.svc A 192.0.2.1")
	assert.Contains(t, endpoints(t, ns), "web.dns-down.example.svc.us-east-1 CNAME web.dns-down.example.svc.example.com")
}

// TestDNSWithoutRecords: an input without DNS records is an error naming
// the input and the next step, not an empty output.
func TestDNSWithoutRecords(t *testing.T) {
	w := newWorkspace(t, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: dns-none, namespace: dns-none}
spec: {placement: {clusterSelector: {}}}
`)
	out, _, err := w.dns(t)
	require.Error(t, err)
	assert.Empty(t, out)
	assert.Contains(t, err.Error(), "no ServiceDNSRecord or IngressDNSRecord in "+filepath.Join(w.dir, "app")+": nothing to write DNS records for; add a ServiceDNSRecord")
}

// getEndpoint reads a DNSEndpoint in cluster1; nil when there is none.
func getEndpoint(t *testing.T, ns, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := env.Dynamic(t, "cluster1").Resource(dnsEndpoints).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return obj
}

// withoutRecord is app without its ServiceDNSRecord; the Domain stays, so
// the DNS cluster is still named.
func withoutRecord(manifests string) string {
	i := strings.LastIndex(manifests, "---\napiVersion: multiclusterdns.kubefed.io/v1alpha1\nkind: ServiceDNSRecord")
	return manifests[:i]
}

func (w *workspace) delete(t *testing.T, args ...string) (string, error) {
	t.Helper()
	_, errOut, err := w.run(t, func(f *cmdutil.Factory) *cobra.Command { return deletecmd.NewCmdDelete(f, nil) }, args...)
	return errOut, err
}

// TestDNSPrune: a second apply where nothing changed writes no DNSEndpoint;
// with --prune --applyset the DNSEndpoints carry the set, and the one whose
// record left the input is deleted by the next apply --prune (not by an
// apply without it), while one fedctl did not write stays.
func TestDNSPrune(t *testing.T) {
	const ns = "dns-prune"
	w := newWorkspace(t, app(ns, 3, ""))
	prune := []string{"--prune", "--applyset", "app", "-n", ns}
	errOut, err := w.apply(t, prune...)
	require.NoError(t, err)
	assert.Regexp(t, `DNS: 1 DNSEndpoints \(\d+ names\) applied in cluster cluster1`, errOut)
	obj := getEndpoint(t, ns, "service-web")
	require.NotNil(t, obj)
	set := obj.GetLabels()[dnssync.SetLabel]
	assert.True(t, strings.HasPrefix(set, "applyset-"), "labelled with the set's ID: %q", set)

	errOut, err = w.apply(t, prune...)
	require.NoError(t, err)
	assert.Regexp(t, `DNS: 1 DNSEndpoints \(\d+ names\) unchanged in cluster cluster1`, errOut)
	assert.Equal(t, obj.GetResourceVersion(), getEndpoint(t, ns, "service-web").GetResourceVersion(), "nothing was written")

	// --cluster leaves the DNS step out, the pruning of DNS clusters
	// included: its members' parents record cluster1, which the input
	// still names, and it must not be taken as a cluster the set left
	errOut, err = w.apply(t, append(prune, "--cluster", "cluster2")...)
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS records: not written, as --cluster applies to some members only")
	assert.NotContains(t, errOut, "deleted in cluster cluster1")
	require.NotNil(t, getEndpoint(t, ns, "service-web"), "not pruned by a run on some members")
	assert.Equal(t, obj.GetResourceVersion(), getEndpoint(t, ns, "service-web").GetResourceVersion())

	// a dry run says what it would write, and writes nothing; a client dry
	// run without --prune reads no cluster, so it says it did not look
	w.write(t, app(ns, 3, "  recordTTL: 120\n"))
	for _, dry := range []struct{ flag, suffix string }{{"--dry-run=client", " (dry run)"}, {"--dry-run=server", " (server dry run)"}} {
		errOut, err = w.apply(t, append(prune, dry.flag)...)
		require.NoError(t, err, dry.flag)
		assert.Regexp(t, `DNS: 1 DNSEndpoints \(\d+ names\) applied in cluster cluster1`+regexp.QuoteMeta(dry.suffix)+"\n", errOut)
		assert.Equal(t, obj.GetResourceVersion(), getEndpoint(t, ns, "service-web").GetResourceVersion(), dry.flag)
	}
	errOut, err = w.apply(t, "-n", ns, "--dry-run=client")
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS records: not computed, as --dry-run=client without --prune reads no cluster")
	errOut, err = w.apply(t, prune...)
	require.NoError(t, err)
	assert.Regexp(t, `DNS: 1 DNSEndpoints \(\d+ names\) applied in cluster cluster1\n`, errOut)
	eps, _, _ := unstructured.NestedSlice(getEndpoint(t, ns, "service-web").Object, "spec", "endpoints")
	require.NotEmpty(t, eps)
	assert.EqualValues(t, 120, eps[0].(map[string]any)["recordTTL"])

	// another tool's DNSEndpoint that carries the set's label
	foreign := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "externaldns.k8s.io/v1alpha1", "kind": "DNSEndpoint",
		"metadata": map[string]any{"name": "service-other", "namespace": ns, "labels": map[string]any{dnssync.SetLabel: set}},
		"spec":     map[string]any{"endpoints": []any{}},
	}}
	_, err = env.Dynamic(t, "cluster1").Resource(dnsEndpoints).Namespace(ns).Create(context.Background(), foreign, metav1.CreateOptions{})
	require.NoError(t, err)

	w.write(t, withoutRecord(app(ns, 3, "")))
	_, err = w.apply(t, "-n", ns)
	require.NoError(t, err)
	require.NotNil(t, getEndpoint(t, ns, "service-web"), "kept without --prune, as member objects are")

	// dry runs list the deletion and delete nothing; --max-deletions
	// bounds the DNS cluster's deletions as it bounds a member's
	for _, dry := range []struct{ flag, suffix string }{{"--dry-run=client", " (dry run)"}, {"--dry-run=server", " (server dry run)"}} {
		errOut, err = w.apply(t, append(prune, dry.flag)...)
		require.NoError(t, err, dry.flag)
		assert.Contains(t, errOut, "DNS: DNSEndpoint dns-prune/service-web deleted in cluster cluster1 (pruned: its record left the input)"+dry.suffix+"\n")
		require.NotNil(t, getEndpoint(t, ns, "service-web"), dry.flag)
	}
	errOut, err = w.apply(t, append(prune, "--max-deletions=0")...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not pruned: 1 DNSEndpoints would be deleted in cluster cluster1 (dns-prune/service-web), more than --max-deletions=0")
	assert.NotContains(t, errOut, "deleted in cluster cluster1")
	require.NotNil(t, getEndpoint(t, ns, "service-web"))

	errOut, err = w.apply(t, prune...)
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: DNSEndpoint dns-prune/service-web deleted in cluster cluster1 (pruned: its record left the input)")
	assert.Contains(t, errOut, "DNS: DNSEndpoint dns-prune/service-other in cluster cluster1 left in place: not created by fedctl")
	assert.Nil(t, getEndpoint(t, ns, "service-web"))
	assert.NotNil(t, getEndpoint(t, ns, "service-other"))
}

// TestDNSDelete: fedctl delete deletes the DNSEndpoints of the input's
// records, first; a dry run and a delete limited by --cluster keep them;
// a DNS cluster that cannot be opened stops it before any member.
func TestDNSDelete(t *testing.T) {
	const ns = "dns-delete"
	w := newWorkspace(t, app(ns, 3, ""))
	_, err := w.apply(t)
	require.NoError(t, err)
	require.NotNil(t, getEndpoint(t, ns, "service-web"))

	errOut, err := w.delete(t, "--dry-run=client")
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: DNSEndpoint dns-delete/service-web deleted in cluster cluster1 (dry run)")
	errOut, err = w.delete(t, "--dry-run=server")
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: DNSEndpoint dns-delete/service-web deleted in cluster cluster1 (server dry run)")
	require.NotNil(t, getEndpoint(t, ns, "service-web"))

	errOut, err = w.delete(t, "--cluster", "cluster3")
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS records: kept, as --cluster deletes from some members only")
	require.NotNil(t, getEndpoint(t, ns, "service-web"))

	// a DNS cluster that cannot be opened stops it before any member
	errOut, err = w.delete(t, "--dns-context", "nosuch")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nosuch")
	assert.Contains(t, err.Error(), "nothing was deleted")
	assert.Contains(t, err.Error(), "--keep-dns", "the way out for a DNS cluster gone for good")
	assert.NotContains(t, errOut, "deleted", "no member was touched")

	// --keep-dns: the members' objects go, the records stay (a dry run
	// here, so that the deletion below still has them)
	errOut, err = w.delete(t, "--dns-context", "nosuch", "--keep-dns", "--dry-run=client")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "DNS records: their DNSEndpoints are left in place (--keep-dns)")
	assert.Contains(t, errOut, "deployment.apps/web")
	assert.NotContains(t, errOut, "DNSEndpoint dns-delete/service-web deleted")

	errOut, err = w.delete(t)
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: DNSEndpoint dns-delete/service-web deleted in cluster cluster1\n")
	assert.Less(t, strings.Index(errOut, "DNSEndpoint dns-delete/service-web deleted"), strings.Index(errOut, "deployment.apps/web"),
		"the name goes before the load balancers behind it")
	assert.Nil(t, getEndpoint(t, ns, "service-web"))
}

// TestDNSDeleteRollout: delete --rollout withdraws each wave's targets
// from the names before it deletes the wave, so that no name points at a
// load balancer that is gone while the canary still serves; the last wave
// leaves no member serving, and the DNSEndpoints go before it.
func TestDNSDeleteRollout(t *testing.T) {
	const ns = "dns-delete-rollout"
	w := newWorkspace(t, app(ns, 5, ""))
	require.NoError(t, os.WriteFile(w.fedPath, []byte(federationFile+"rollout:\n  timeout: 60s\n  waves:\n  - {name: canary, clusters: [cluster1]}\n  - {name: rest}\n"), 0o600))
	w.serve(t, ns, map[string]string{"cluster1": "192.0.2.1", "cluster3": "198.51.100.3"})
	_, err := w.apply(t)
	require.NoError(t, err)
	require.Contains(t, endpoints(t, ns), "web.dns-delete-rollout.example.svc A 192.0.2.1,198.51.100.3")

	errOut, err := w.delete(t, "--rollout", "--to-wave", "rest")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "DNS: the targets of cluster2, cluster3 withdrawn from 1 DNSEndpoints in cluster cluster1")
	assert.Less(t, strings.Index(errOut, "withdrawn"), strings.Index(errOut, "deployment.apps/web deleted"), "the names first")
	assert.ElementsMatch(t, []string{
		"web.dns-delete-rollout.example.svc A 192.0.2.1",
		"web.dns-delete-rollout.example.svc.eu-west-1 A 192.0.2.1",
		"web.dns-delete-rollout.example.svc.eu-west-1a.eu-west-1 A 192.0.2.1",
		"web.dns-delete-rollout.example.svc.eu-west-1b.eu-west-1 CNAME web.dns-delete-rollout.example.svc.eu-west-1.example.com",
		"web.dns-delete-rollout.example.svc.us-east-1 CNAME web.dns-delete-rollout.example.svc.example.com",
		"web.dns-delete-rollout.example.svc.us-east-1a.us-east-1 CNAME web.dns-delete-rollout.example.svc.us-east-1.example.com",
	}, endpoints(t, ns), "cluster3's load balancer is gone from every name; the canary still serves")

	errOut, err = w.delete(t, "--rollout")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "DNS: DNSEndpoint dns-delete-rollout/service-web deleted in cluster cluster1")
	assert.Nil(t, getEndpoint(t, ns, "service-web"))
}

// TestDNSDiff: fedctl diff shows the DNSEndpoints apply would change in the
// DNS cluster, and with --prune those it would delete, beside the members'
// objects; it changes nothing; an input where nothing changed differs in
// nothing.
func TestDNSDiff(t *testing.T) {
	const ns = "dns-diff"
	w, prune := appliedWithPrune(t, ns)
	rv := getEndpoint(t, ns, "service-web").GetResourceVersion()
	diff := func(args ...string) (string, error) {
		out, _, err := w.run(t, func(f *cmdutil.Factory) *cobra.Command { return diffcmd.NewCmdDiff(f, nil) }, args...)
		return out, err
	}
	exitCode := func(err error) int {
		var exitErr *cmdutil.ExitError
		if errors.As(err, &exitErr) {
			return exitErr.Code
		}
		return map[bool]int{true: 0, false: -1}[err == nil]
	}

	out, err := diff(prune...)
	assert.Equal(t, 0, exitCode(err), "nothing changed: %v", err)
	assert.Empty(t, out)

	const file = "cluster1_externaldns.k8s.io.v1alpha1.DNSEndpoint.dns-diff.service-web"
	w.write(t, app(ns, 3, "  recordTTL: 120\n"))
	out, err = diff(prune...)
	assert.Equal(t, 1, exitCode(err), "%v", err)
	assert.Contains(t, out, "LIVE/"+file)
	assert.Contains(t, out, "MERGED/"+file)
	assert.Regexp(t, `(?m)^-\s+recordTTL: 180$`, out, "the Domain's default")
	assert.Regexp(t, `(?m)^\+\s+recordTTL: 120$`, out)
	assert.NotContains(t, out, "managedFields")

	w.write(t, withoutRecord(app(ns, 3, "")))
	out, err = diff(prune...)
	assert.Equal(t, 1, exitCode(err), "%v", err)
	assert.Regexp(t, `(?m)^-\s+- dnsName: web\.dns-diff\.example\.svc\.eu-west-1\.example\.com$`, out, "the pruned DNSEndpoint shows as deleted")
	assert.NotRegexp(t, `(?m)^\+\s+dnsName:`, out)
	out, _ = diff("-n", ns)
	assert.NotContains(t, out, file, "without --prune the DNSEndpoint stays (the members' objects leave the set)")

	assert.Equal(t, rv, getEndpoint(t, ns, "service-web").GetResourceVersion(), "diff changes nothing")
}

// appliedWithPrune is a workspace of app in ns, applied with --prune
// --applyset app (the flags it returns), and diff's output in plain diff.
func appliedWithPrune(t *testing.T, ns string) (*workspace, []string) {
	t.Helper()
	w := newWorkspace(t, app(ns, 3, ""))
	t.Setenv("FEDCTL_EXTERNAL_DIFF", "")
	t.Setenv("KUBECTL_EXTERNAL_DIFF", "")
	prune := []string{"--prune", "--applyset", "app", "-n", ns}
	_, err := w.apply(t, prune...)
	require.NoError(t, err)
	return w, prune
}

// recordedDNSClusters are the DNS clusters the parent of the ApplySet
// "app" in ns records, in cluster1, cluster2 and cluster3.
func recordedDNSClusters(t *testing.T, ns string) []string {
	t.Helper()
	secrets := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	var out []string
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		parent, err := env.Dynamic(t, c).Resource(secrets).Namespace(ns).Get(context.Background(), "app", metav1.GetOptions{})
		require.NoError(t, err)
		out = append(out, parent.GetAnnotations()[propagate.ApplySetDNSContextAnnotation])
	}
	return out
}

// TestDNSPruneAfterTheDomainLeaves: the ApplySet's parents record the DNS
// cluster, so that when an input drops its Domain with its records (and
// nothing names the DNS cluster any more), diff --prune shows and apply
// --prune deletes the set's DNSEndpoints there; once none is left, the
// parents forget the cluster.
func TestDNSPruneAfterTheDomainLeaves(t *testing.T) {
	const ns = "dns-domain-gone"
	w, prune := appliedWithPrune(t, ns)
	require.NotNil(t, getEndpoint(t, ns, "service-web"))
	assert.Equal(t, []string{"cluster1", "cluster1", "cluster1"}, recordedDNSClusters(t, ns))

	noDNS := withoutRecord(app(ns, 3, ""))
	noDNS = noDNS[strings.Index(noDNS, "---\n")+len("---\n"):] // the Domain goes too
	require.NotContains(t, noDNS, "kind: Domain")
	w.write(t, noDNS)
	out, _, err := w.run(t, func(f *cmdutil.Factory) *cobra.Command { return diffcmd.NewCmdDiff(f, nil) }, prune...)
	var exitErr *cmdutil.ExitError
	require.ErrorAs(t, err, &exitErr)
	assert.Equal(t, 1, exitErr.Code)
	assert.Contains(t, out, "LIVE/cluster1_externaldns.k8s.io.v1alpha1.DNSEndpoint."+ns+".service-web")
	require.NotNil(t, getEndpoint(t, ns, "service-web"), "diff deletes nothing")

	errOut, err := w.apply(t, prune...)
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: Secret "+ns+"/app still has 1 DNSEndpoints in cluster cluster1 (recorded on its parents), which the input no longer names")
	assert.Contains(t, errOut, "DNS: DNSEndpoint "+ns+"/service-web deleted in cluster cluster1 (pruned: the input no longer names cluster cluster1)")
	assert.Nil(t, getEndpoint(t, ns, "service-web"))
	assert.Equal(t, []string{"cluster1", "cluster1", "cluster1"}, recordedDNSClusters(t, ns), "kept while the run prunes there")

	errOut, err = w.apply(t, prune...)
	require.NoError(t, err)
	assert.NotContains(t, errOut, "DNS")
	assert.Equal(t, []string{"", "", ""}, recordedDNSClusters(t, ns), "nothing of the set is left in cluster1: forgotten")
}

// TestDNSMovesCluster: when the DNS cluster changes, apply --prune writes
// the DNSEndpoints to the new one and deletes the set's from the old one,
// which the parents record until it holds none; a new name for the same
// cluster (a renamed kubeconfig context) deletes nothing.
func TestDNSMovesCluster(t *testing.T) {
	const ns = "dns-moves"
	w, prune := appliedWithPrune(t, ns)
	installCRDIn(t, "cluster2")
	endpointIn := func(cluster string) *unstructured.Unstructured {
		obj, err := env.Dynamic(t, cluster).Resource(dnsEndpoints).Namespace(ns).Get(context.Background(), "service-web", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		require.NoError(t, err)
		return obj
	}
	recorded := func() []string { return recordedDNSClusters(t, ns) }
	require.NotNil(t, endpointIn("cluster1"))
	assert.Equal(t, []string{"cluster1", "cluster1", "cluster1"}, recorded())

	// a named cluster that cannot be opened stops the run before any write
	errOut, err := w.apply(t, append(slices.Clone(prune), "--dns-context", "nosuch")...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nosuch")
	assert.NotContains(t, errOut, "cluster cluster1:", "no member was synced")
	errOut, err = w.apply(t, "-n", ns, "--dns-context", "nosuch") // without --prune too
	require.Error(t, err)
	assert.NotContains(t, errOut, "cluster cluster1:", "no member was synced")
	assert.Equal(t, []string{"cluster1", "cluster1", "cluster1"}, recorded())

	// a new cluster that cannot take the DNSEndpoints (no CRD in cluster3):
	// the old one's are not pruned, so the names keep resolving
	errOut, err = w.apply(t, append(slices.Clone(prune), "--dns-context", "cluster3")...)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "are not pruned, as cluster cluster3 was not fully written")
	assert.NotContains(t, errOut, "deleted in cluster cluster1")
	require.NotNil(t, endpointIn("cluster1"))

	toCluster2 := append(slices.Clone(prune), "--dns-context", "cluster2")
	out, _, err := w.run(t, func(f *cmdutil.Factory) *cobra.Command { return diffcmd.NewCmdDiff(f, nil) }, toCluster2...)
	var exitErr *cmdutil.ExitError
	require.ErrorAs(t, err, &exitErr)
	assert.Equal(t, 1, exitErr.Code)
	assert.Contains(t, out, "MERGED/cluster2_externaldns.k8s.io.v1alpha1.DNSEndpoint."+ns+".service-web", "written there")
	assert.Regexp(t, `\+\+\+ \S+/MERGED/cluster1_externaldns.k8s.io.v1alpha1.DNSEndpoint.`+ns+`.service-web\s+1970`, out, "deleted in the old one")

	errOut, err = w.apply(t, toCluster2...)
	require.NoError(t, err)
	assert.Contains(t, errOut, "DNS: 1 DNSEndpoints")
	assert.Contains(t, errOut, "DNS: DNSEndpoint "+ns+"/service-web deleted in cluster cluster1 (pruned: the input no longer names cluster cluster1)")
	assert.Nil(t, endpointIn("cluster1"))
	require.NotNil(t, endpointIn("cluster2"))
	assert.Equal(t, []string{"cluster1,cluster2", "cluster1,cluster2", "cluster1,cluster2"}, recorded(), "cluster1 stays recorded until it is known empty")

	errOut, err = w.apply(t, toCluster2...)
	require.NoError(t, err)
	assert.NotContains(t, errOut, "deleted")
	assert.Equal(t, []string{"cluster2", "cluster2", "cluster2"}, recorded())

	// dns-alias is another kubeconfig context for cluster2
	cfg, err := clientcmd.LoadFromFile(w.kubeconfig)
	require.NoError(t, err)
	alias := *cfg.Contexts["cluster2"]
	cfg.Contexts["dns-alias"] = &alias
	w.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*cfg, w.kubeconfig))
	rv := endpointIn("cluster2").GetResourceVersion()
	errOut, err = w.apply(t, append(slices.Clone(prune), "--dns-context", "dns-alias")...)
	require.NoError(t, err)
	assert.NotContains(t, errOut, "deleted")
	require.NotNil(t, endpointIn("cluster2"), "the same DNSEndpoint under the new name")
	assert.Equal(t, rv, endpointIn("cluster2").GetResourceVersion())
	assert.Equal(t, []string{"dns-alias", "dns-alias", "dns-alias"}, recorded(), "cluster2 holds nothing but what dns-alias holds: forgotten")

	// a recorded cluster that cannot be reached any more (its context is
	// gone) stays recorded, and the run is partial
	delete(cfg.Contexts, "dns-alias")
	require.NoError(t, clientcmd.WriteToFile(*cfg, w.kubeconfig))
	_, _, err = w.run(t, func(f *cmdutil.Factory) *cobra.Command { return diffcmd.NewCmdDiff(f, nil) }, prune...)
	require.ErrorAs(t, err, &exitErr)
	assert.Equal(t, 2, exitErr.Code)
	assert.Contains(t, err.Error(), "in DNS cluster(s) dns-alias", "the cluster that failed, not cluster1, which was compared")
	errOut, err = w.apply(t, prune...) // the Domain names cluster1 again
	var partial *cmdutil.PartialError
	require.ErrorAs(t, err, &partial)
	assert.Equal(t, []string{"dns-alias"}, partial.Failed)
	assert.Contains(t, err.Error(), "cluster dns-alias (DNS)")
	assert.Contains(t, err.Error(), "(recorded on the parents of Secret "+ns+"/app in cluster1, cluster2, cluster3)")
	assert.Contains(t, errOut, "DNS: 1 DNSEndpoints")
	assert.Equal(t, []string{"cluster1,dns-alias", "cluster1,dns-alias", "cluster1,dns-alias"}, recorded())
	require.NotNil(t, endpointIn("cluster2"), "not pruned on partial knowledge")

	// --dns-forget stops recording a context that is gone for good
	_, err = w.apply(t, append(slices.Clone(prune), "--dns-forget", "dns-alias")...)
	require.NoError(t, err)
	assert.Equal(t, []string{"cluster1", "cluster1", "cluster1"}, recorded())
}

// TestDNSServerDryRunNewNamespace: a server-side dry run of a first apply,
// whose namespace the real apply would create in the DNS cluster (a member
// here), says what it would write instead of failing on the namespace.
func TestDNSServerDryRunNewNamespace(t *testing.T) {
	const ns = "dns-dry-new"
	w := newWorkspace(t, app(ns, 3, ""))
	errOut, err := w.apply(t, "--dry-run=server")
	require.NoError(t, err)
	assert.Regexp(t, `DNS: 1 DNSEndpoints \(\d+ names\) applied in cluster cluster1 \(server dry run\)\n`, errOut)
	assert.Nil(t, getEndpoint(t, ns, "service-web"))
}

// TestDNSClusterHangs: a DNS cluster reached through an exec credential
// plugin that hangs holds apply only until --timeout: the members are
// applied, and the DNS step fails naming what happened, instead of
// waiting for as long as the plugin runs (40 s here, forever in life).
func TestDNSClusterHangs(t *testing.T) {
	const ns = "dns-hang"
	w := newWorkspace(t, app(ns, 5, ""))
	w.kubeconfig = env.KubeconfigHangingExec(t, "dns-exec", "cluster1", 40*time.Second)
	start := time.Now()
	errOut, err := w.apply(t, "--timeout", "3s", "--dns-context", "dns-exec")
	took := time.Since(start)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no answer in time")
	assert.Contains(t, err.Error(), "dns-exec")
	assert.Less(t, took, 20*time.Second, "ended by --timeout, not by the plugin")
	assert.Contains(t, errOut, "cluster2  deployment.apps/web created", "the members are applied first")
	t.Logf("apply with a hanging DNS cluster: %s", took.Round(100*time.Millisecond))
}
