package apply

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// Fault drills: cluster2 is reached through a testenv.FaultProxy, which
// answers some requests with throttling, server errors, broken connections
// or silence, while the real API server decides everything else. Each drill
// is one fault of the reliability issue and the behaviour fedctl owes it.

// faultDrill is the federation of the three test clusters with cluster2
// reached through a fault proxy.
type faultDrill struct {
	proxy      *testenv.FaultProxy
	fed        *members.Federation
	kubeconfig string
}

func newFaultDrill(t *testing.T) *faultDrill {
	t.Helper()
	e := testenv.Require(t, env)
	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	d := &faultDrill{proxy: p, fed: federationOf(), kubeconfig: e.KubeconfigVia(t, "cluster2-proxied", "cluster2", p.Server)}
	m, _ := d.fed.Member("cluster2")
	m.Context = "cluster2-proxied"
	require.NoError(t, d.fed.Put(m, true))
	return d
}

func (d *faultDrill) apply(t *testing.T, args ...string) applyRun {
	t.Helper()
	return runApplyVia(t, d.fed, d.kubeconfig, nil, args...)
}

// appDoc is a FederatedNamespace with n ConfigMaps and a Deployment.
func appDoc(ns string, n int, value string) string {
	var b strings.Builder
	b.WriteString(namespaceDoc(ns))
	for i := range n {
		b.WriteString(configMapDoc(ns, fmt.Sprintf("cfg-%02d", i), value, allClusters, ""))
	}
	b.WriteString(deploymentDoc(ns, "web", "nginx:"+value, 1, "", allClusters, ""))
	return b.String()
}

// assertConverged checks that every member holds the ConfigMaps of
// appDoc(ns, n, value) with that value.
func assertConverged(t *testing.T, ns string, n int, value string) {
	t.Helper()
	for _, c := range clusterNames {
		for i := range n {
			cm := mustGet(t, c, cmGVR, ns, fmt.Sprintf("cfg-%02d", i))
			v, _, _ := unstructured.NestedString(cm.Object, "data", "k")
			assert.Equal(t, value, v, "%s cfg-%02d", c, i)
		}
	}
}

// TestDrillDiscoveryRetried: discovery that fails with a 500, a reset
// mid-response or a reset before any response is retried; the member
// converges and the run exits 0.
func TestDrillDiscoveryRetried(t *testing.T) {
	d := newFaultDrill(t)
	discovery := []string{"/api", "/apis"}
	for i, tc := range []struct {
		name   string
		faults testenv.Faults
		// client-go and Go's transport retry some faults themselves (a GET
		// whose connection was reset before any answer); fedctl's own
		// retries show for the others
		ownRetries bool
	}{
		{"500", testenv.Faults{Paths: discovery, ExactPaths: true, Status: http.StatusInternalServerError, Times: 3}, true},
		{"reset mid-response", testenv.Faults{Paths: discovery, ExactPaths: true, Reset: true, Times: 2}, true},
		{"reset before the response", testenv.Faults{Paths: discovery, ExactPaths: true, ResetBeforeResponse: true, Times: 4}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := fmt.Sprintf("drill-disco-%d", i)
			dir := t.TempDir()
			write(t, dir, appDoc(ns, 3, "v1"))
			d.proxy.Set(tc.faults)
			r := d.apply(t, "-f", dir, "--timeout", "30s")
			require.NoError(t, r.err, r.errOut)
			_, injected := d.proxy.Counts()
			assert.Equal(t, tc.faults.Times, injected, "every fault was met")
			if tc.ownRetries {
				assert.Positive(t, r.report.Clusters[1].Retries, "cluster2 retried")
			}
			assert.Equal(t, 5, r.report.Clusters[1].Count(propagate.Created))
			assertConverged(t, ns, 3, "v1")
		})
	}
}

// TestDrillTransientErrorsWithinTheTimeout: server errors and resets are
// retried for as long as --deadline allows, not a fixed number
// of times: 30% of requests failing, a 3-second burst of 503s and 429s
// with Retry-After all converge with exit 0.
func TestDrillTransientErrorsWithinTheTimeout(t *testing.T) {
	d := newFaultDrill(t)
	const n = 20
	for i, tc := range []struct {
		name   string
		faults testenv.Faults
		burst  time.Duration // the faults stop after this long, when set
		// client-go itself waits out a 429's Retry-After and sends again
		ownRetries bool
	}{
		{"30% 5xx", testenv.Faults{Status: http.StatusServiceUnavailable, Rate: 0.3, Seed: 1}, 0, true},
		{"30% 500 on writes", testenv.Faults{Methods: []string{"PATCH"}, Status: http.StatusInternalServerError, Rate: 0.3, Seed: 2}, 0, true},
		{"30% resets mid-response", testenv.Faults{Reset: true, Rate: 0.3, Seed: 3}, 0, true},
		{"3s of 503", testenv.Faults{Status: http.StatusServiceUnavailable}, 3 * time.Second, true},
		{"429 with Retry-After", testenv.Faults{Status: http.StatusTooManyRequests, RetryAfter: 1, Times: 3}, 0, false},
		{"504 gateway timeouts", testenv.Faults{Status: http.StatusGatewayTimeout, Rate: 0.3, Seed: 4}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := fmt.Sprintf("drill-transient-%d", i)
			dir := t.TempDir()
			write(t, dir, appDoc(ns, n, "v1"))
			d.proxy.Set(tc.faults)
			var burstRequests, burstInjected int
			if tc.burst > 0 {
				stop := time.AfterFunc(tc.burst, func() {
					burstRequests, burstInjected = d.proxy.Counts()
					d.proxy.Set(testenv.Faults{})
				})
				defer stop.Stop()
			}
			start := time.Now()
			r := d.apply(t, "-f", dir, "--deadline", "30s")
			took := time.Since(start)
			requests, injected := d.proxy.Counts()
			requests, injected = requests+burstRequests, injected+burstInjected
			c2 := r.report.Clusters[1]
			t.Logf("%s: %s, %d requests to cluster2 through the proxy, %d faults, %d retries, %.1fs waiting",
				tc.name, took.Round(10*time.Millisecond), requests, injected, c2.Retries, c2.RetryWaitSeconds)
			require.NoError(t, r.err, r.errOut)
			require.Positive(t, injected)
			if tc.ownRetries {
				assert.GreaterOrEqual(t, c2.Retries, int64(1))
				assert.Contains(t, r.errOut, fmt.Sprintf("✓ cluster cluster2: %d created (%d retr", n+2, c2.Retries), "the summary says cluster2 retried")
			}
			assertConverged(t, ns, n, "v1")

			// and a re-run with the faults still there changes nothing
			if tc.burst == 0 {
				d.proxy.Set(tc.faults)
				r = d.apply(t, "-f", dir, "--deadline", "30s")
				require.NoError(t, r.err, r.errOut)
				assert.Equal(t, n+2, r.report.Clusters[1].Count(propagate.Unchanged))
			}
		})
	}
}

// TestDrillStaleGroupNeverNarrowsPrune: with apps marked Stale in
// cluster2's discovery (an aggregated API that is down looks the same),
// a prune that would delete Deployments deletes nothing in cluster2,
// keeps the ApplySet parent's Deployment.apps and exits 3 with the reason;
// the other members are pruned. Once discovery recovers, the next run
// prunes cluster2 too.
func TestDrillStaleGroupNeverNarrowsPrune(t *testing.T) {
	d := newFaultDrill(t)
	const ns = "drill-stale"
	dir := t.TempDir()
	prune := []string{"-f", dir, "--prune", "--applyset", "app", "-n", ns, "--timeout", "20s"}
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+
		deploymentDoc(ns, "web", "nginx:1", 1, "", allClusters, "")+deploymentDoc(ns, "api", "nginx:1", 1, "", allClusters, ""))
	require.NoError(t, d.apply(t, prune...).err)

	// the Deployments leave the input; apps is stale in cluster2
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v2", allClusters, ""))
	d.proxy.Set(testenv.Faults{StaleGroups: []string{"apps"}})
	r := d.apply(t, prune...)
	assertPartial(t, r.err, "cluster2")
	c2 := r.report.Clusters[1]
	assert.Contains(t, c2.Error, "Deployment.apps")
	assert.Contains(t, c2.Error, "nothing was pruned here")
	assert.Contains(t, r.errOut, "✗ cluster cluster2: 1 configured, 1 unchanged (")
	assert.Contains(t, r.errOut, "retries, 0.")
	assert.Contains(t, r.errOut, "s waiting); fedctl's objects of some types could not be read, so nothing was pruned here")
	assert.Zero(t, r.requests.counts["cluster2"]["DELETE"])
	for _, name := range []string{"web", "api"} {
		mustGet(t, "cluster2", deployGVR, ns, name)
		assert.Equal(t, propagate.Deleted, r.action("cluster1", "Deployment", ns, name))
		assert.Equal(t, propagate.Deleted, r.action("cluster3", "Deployment", ns, name))
	}
	cm := mustGet(t, "cluster2", cmGVR, ns, "cfg")
	assert.Equal(t, "v2", cm.Object["data"].(map[string]any)["k"], "what could be written was")
	parent := mustGet(t, "cluster2", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, ns, "app")
	assert.Contains(t, parent.GetAnnotations()[propagate.ApplySetGroupKindsAnnotation], "Deployment.apps", "the set still lists the kind it could not read")

	// discovery recovers: cluster2 is pruned too
	d.proxy.Set(testenv.Faults{})
	r = d.apply(t, prune...)
	require.NoError(t, r.err, r.errOut)
	for _, name := range []string{"web", "api"} {
		assert.Equal(t, propagate.Deleted, r.action("cluster2", "Deployment", ns, name))
		_, err := get(t, "cluster2", deployGVR, ns, name)
		assert.True(t, apierrors.IsNotFound(err), "%v", err)
	}
	parent = mustGet(t, "cluster2", schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, ns, "app")
	assert.NotContains(t, parent.GetAnnotations()[propagate.ApplySetGroupKindsAnnotation], "Deployment.apps")
}

// TestDrillHungMemberBoundedByTimeout: a member that completes TLS and
// never answers costs --deadline, not client-go's defaults nor the
// per-request --timeout's retries; the others are done meanwhile and the
// run exits 3 saying which timeout fired.
func TestDrillHungMemberBoundedByTimeout(t *testing.T) {
	d := newFaultDrill(t)
	const ns = "drill-hang"
	dir := t.TempDir()
	write(t, dir, appDoc(ns, 2, "v1"))
	d.proxy.Set(testenv.Faults{Hang: true})
	start := time.Now()
	r := d.apply(t, "-f", dir, "--deadline", "3s")
	took := time.Since(start)
	t.Logf("apply with cluster2 silent: %s", took.Round(10*time.Millisecond))
	assertPartial(t, r.err, "cluster2")
	assert.Less(t, took, 15*time.Second, "bounded by --deadline 3s, not by a 30 s request timeout")
	assert.Equal(t, "deadline reached (--deadline 3s)", r.report.Clusters[1].Error)
	for _, c := range []string{"cluster1", "cluster3"} {
		mustGet(t, c, cmGVR, ns, "cfg-01")
	}

	// with a per-request --timeout shorter than the deadline, the
	// requests time out and are retried until the deadline passes; the
	// error names the timeout that fired last
	start = time.Now()
	r = d.apply(t, "-f", dir, "--timeout", "1s", "--deadline", "4s")
	took = time.Since(start)
	t.Logf("apply with cluster2 silent, --timeout 1s --deadline 4s: %s", took.Round(10*time.Millisecond))
	assertPartial(t, r.err, "cluster2")
	assert.Less(t, took, 15*time.Second)
	assert.Regexp(t, `deadline reached \(--deadline 4s\)|within the request timeout \(--timeout\)`, r.report.Clusters[1].Error)
	for _, c := range []string{"cluster1", "cluster3"} {
		mustGet(t, c, cmGVR, ns, "cfg-01")
	}
}

// TestDrillCredentialsHangBoundedByDeadline: cluster2's credentials come
// from an exec plugin that never answers (a cloud login with no route to
// its token service). client-go runs it with no context, so only giving up
// on the member bounds the run: --deadline ends it, the others are
// applied, and cluster2's error names the likely cause.
func TestDrillCredentialsHangBoundedByDeadline(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	kubeconfig := e.KubeconfigHangingExec(t, "cluster2-exec", "cluster2", 40*time.Second)
	m, _ := fed.Member("cluster2")
	m.Context = "cluster2-exec"
	require.NoError(t, fed.Put(m, true))
	const ns = "drill-exec"
	dir := t.TempDir()
	write(t, dir, appDoc(ns, 2, "v1"))
	start := time.Now()
	r := runApplyVia(t, fed, kubeconfig, nil, "-f", dir, "--deadline", "3s")
	took := time.Since(start)
	t.Logf("apply with cluster2's exec plugin hanging, --deadline 3s: %s", took.Round(10*time.Millisecond))
	assertPartial(t, r.err, "cluster2")
	assert.Less(t, took, 20*time.Second, "bounded by --deadline 3s, not by the plugin's 40s")
	require.NotNil(t, r.report)
	assert.Contains(t, r.report.Clusters[1].Error, "no answer in time")
	assert.Contains(t, r.report.Clusters[1].Error, "what was written to it before is not known")
	for _, c := range []string{"cluster1", "cluster3"} {
		mustGet(t, c, cmGVR, ns, "cfg-01")
	}
}

// TestDrillForbiddenType: in a member where fedctl's user may not list
// ConfigMaps, the types it may write are applied, the ConfigMaps it may
// not touch are reported one by one with the API server's reason, nothing
// is pruned there, and the run exits 3.
func TestDrillForbiddenType(t *testing.T) {
	e := testenv.Require(t, env)
	const ns = "drill-forbidden"
	// a user of cluster2 who may do everything fedctl does but list
	// (and so also not get) ConfigMaps
	kubeconfig := limitedUser(t, e, "cluster2", []map[string]any{
		{"apiGroups": []any{"", "apps"}, "resources": []any{"namespaces", "deployments", "secrets"}, "verbs": []any{"*"}},
		{"apiGroups": []any{""}, "resources": []any{"configmaps"}, "verbs": []any{"create", "patch", "update", "delete"}},
	})
	fed := federationOf()
	m, _ := fed.Member("cluster2")
	m.Context = "cluster2-limited"
	require.NoError(t, fed.Put(m, true))

	dir := t.TempDir()
	prune := []string{"-f", dir, "--prune", "--applyset", "app", "-n", ns, "--timeout", "20s"}
	write(t, dir, appDoc(ns, 2, "v1"))
	r := runApplyVia(t, fed, kubeconfig, nil, prune...)
	assertPartial(t, r.err, "cluster2")
	assert.Equal(t, propagate.Created, r.action("cluster2", "Deployment", ns, "web"), "the types it may write are applied")
	assert.Equal(t, propagate.Created, r.action("cluster2", "Namespace", "", ns))
	for _, name := range []string{"cfg-00", "cfg-01"} {
		o := r.object("cluster2", "ConfigMap", ns, name)
		assert.Equal(t, propagate.Failed, o.Action, name)
		assert.Equal(t, propagate.ReasonForbidden, o.Reason, name)
		assert.Contains(t, o.Error, "forbidden", name)
		assert.Equal(t, propagate.Created, r.action("cluster1", "ConfigMap", ns, name))
	}
	assert.Contains(t, r.report.Clusters[1].Error, "cannot list resource \"configmaps\"")
	assert.Contains(t, r.errOut, "failed ConfigMap drill-forbidden/cfg-00: get: configmaps \"cfg-00\" is forbidden")

	// a ConfigMap that leaves the input is not pruned where ConfigMaps
	// cannot be read: the deployment that also leaves is not either
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg-00", "v1", allClusters, ""))
	r = runApplyVia(t, fed, kubeconfig, nil, prune...)
	assertPartial(t, r.err, "cluster2")
	assert.Zero(t, r.requests.counts["cluster2"]["DELETE"])
	assert.Equal(t, propagate.Skipped, r.action("cluster2", "Deployment", ns, "web"))
	assert.Equal(t, propagate.ReasonNotPruned, r.object("cluster2", "Deployment", ns, "web").Reason)
	mustGet(t, "cluster2", deployGVR, ns, "web")
	assert.Equal(t, propagate.Deleted, r.action("cluster1", "Deployment", ns, "web"))
	assert.Equal(t, propagate.Deleted, r.action("cluster1", "ConfigMap", ns, "cfg-01"))
}

// limitedUser creates in cluster a ServiceAccount bound to a ClusterRole
// with rules, and returns a kubeconfig with a context "<cluster>-limited"
// that authenticates as it with a bound token.
func limitedUser(t *testing.T, e *testenv.Env, cluster string, rules []map[string]any) string {
	t.Helper()
	ctx := context.Background()
	name := "fedctl-limited"
	c := client(t, cluster)
	sa := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": name, "namespace": "default"}}}
	role := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": name}, "rules": toAny(rules)}}
	binding := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": map[string]any{"name": name},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
		"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": name, "namespace": "default"}}}}
	for _, o := range []struct {
		gvr schema.GroupVersionResource
		obj *unstructured.Unstructured
	}{
		{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, sa},
		{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles"}, role},
		{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings"}, binding},
	} {
		ri := c.Resource(o.gvr)
		var err error
		if o.obj.GetNamespace() != "" {
			_, err = ri.Namespace(o.obj.GetNamespace()).Apply(ctx, o.obj.GetName(), o.obj, metav1.ApplyOptions{FieldManager: "drill", Force: true})
		} else {
			_, err = ri.Apply(ctx, o.obj.GetName(), o.obj, metav1.ApplyOptions{FieldManager: "drill", Force: true})
		}
		require.NoError(t, err)
	}
	cfg, err := e.RESTConfig(cluster)
	require.NoError(t, err)
	cs := kubernetesClient(t, cfg)
	tok, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, name, tokenRequest(3600), metav1.CreateOptions{})
	require.NoError(t, err)

	kc, err := clientcmd.LoadFromFile(e.Kubeconfig)
	require.NoError(t, err)
	via := kc.Contexts[cluster].DeepCopy()
	user := kc.AuthInfos[via.AuthInfo].DeepCopy()
	user.Token, user.TokenFile = tok.Status.Token, ""
	user.ClientCertificateData, user.ClientKeyData = nil, nil
	kc.AuthInfos[cluster+"-limited"] = user
	via.AuthInfo = cluster + "-limited"
	kc.Contexts[cluster+"-limited"] = via
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

func toAny(rules []map[string]any) []any {
	out := make([]any, len(rules))
	for i, r := range rules {
		out[i] = r
	}
	return out
}

// TestDrillErrorsSayWhatHappened: the member's failure is one line that
// says what happened in words: a connection that breaks mid-response is
// not "cannot be reached", an untrusted certificate is explained in apply
// as in get clusters, a missing context names the member once.
func TestDrillErrorsSayWhatHappened(t *testing.T) {
	e := testenv.Require(t, env)
	d := newFaultDrill(t)
	dir := t.TempDir()
	write(t, dir, appDoc("drill-words", 1, "v1"))

	t.Run("reset mid-response", func(t *testing.T) {
		d.proxy.Set(testenv.Faults{Reset: true})
		r := d.apply(t, "-f", dir, "--deadline", "2s")
		assertPartial(t, r.err, "cluster2")
		assert.Contains(t, r.report.Clusters[1].Error, "the connection to the API server broke while it was answering")
		assert.NotContains(t, r.report.Clusters[1].Error, "cannot be reached")
	})

	t.Run("untrusted certificate", func(t *testing.T) {
		d.proxy.Set(testenv.Faults{})
		kc, err := clientcmd.LoadFromFile(d.kubeconfig)
		require.NoError(t, err)
		kc.Clusters[kc.Contexts["cluster2-proxied"].Cluster].CertificateAuthorityData = otherCA(t)
		kc.Clusters[kc.Contexts["cluster2-proxied"].Cluster].CertificateAuthority = ""
		path := filepath.Join(t.TempDir(), "kubeconfig")
		require.NoError(t, clientcmd.WriteToFile(*kc, path))
		r := runApplyVia(t, d.fed, path, nil, "-f", dir, "--timeout", "5s")
		assertPartial(t, r.err, "cluster2")
		assert.Contains(t, r.report.Clusters[1].Error, "the API server's certificate is not trusted (")
		assert.Contains(t, r.report.Clusters[1].Error, "check certificate-authority-data")
	})

	t.Run("missing context", func(t *testing.T) {
		fed := federationOf()
		m, _ := fed.Member("cluster2")
		m.Context = "nosuch"
		require.NoError(t, fed.Put(m, true))
		r := runApplyVia(t, fed, e.Kubeconfig, nil, "-f", dir, "--timeout", "5s")
		assertPartial(t, r.err, "cluster2")
		assert.Contains(t, r.errOut, "✗ cluster cluster2: context \"nosuch\" in kubeconfig ")
		assert.NotContains(t, r.errOut, "cluster cluster2: cluster cluster2", "the member is named once")
	})
}

// TestDrillResetsAreQuiet: a fedctl binary whose member breaks every
// connection mid-response prints fedctl's report, not client-go's log
// lines (a hundred or more per run before), unless -v 6 asks for them.
func TestDrillResetsAreQuiet(t *testing.T) {
	d := newFaultDrill(t)
	bin := fedctlBinary(t)
	dir := t.TempDir()
	write(t, dir, appDoc("drill-quiet", 3, "v1"))
	config := filepath.Join(t.TempDir(), "federation.yaml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: cluster2
  context: cluster2-proxied
  kubeconfig: %s
`, d.kubeconfig)), 0o600))
	klogLine := regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d`)
	for _, v := range []string{"0", "6"} {
		d.proxy.Set(testenv.Faults{Reset: true})
		cmd := exec.Command(bin, "--config", config, "apply", "-f", dir, "--deadline", "3s", "-v", v)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var exitErr *exec.ExitError
		require.ErrorAs(t, err, &exitErr, errOut.String())
		assert.Equal(t, 1, exitErr.ExitCode(), "the only member failed")
		if v == "0" {
			assert.False(t, klogLine.MatchString(errOut.String()), "no client-go log line at -v 0:\n%s", errOut.String())
			assert.LessOrEqual(t, strings.Count(errOut.String(), "\n"), 3, errOut.String())
			assert.Contains(t, errOut.String(), "the connection to the API server broke while it was answering")
		} else {
			assert.Contains(t, errOut.String(), "[cluster2] GET", "the request log at -v 6")
		}
	}
}

// otherCA is a CA certificate that signed nothing the test servers
// present.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func kubernetesClient(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

func tokenRequest(seconds int64) *authenticationv1.TokenRequest {
	return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
}

// TestDrillDeadlineReached: a member slower than --deadline allows stops
// when it passes: what was not sent is one line, "N objects not
// attempted: deadline reached", the requests cut off in flight one more,
// never a line per object (issue 11); the other members are done.
func TestDrillDeadlineReached(t *testing.T) {
	d := newFaultDrill(t)
	const ns, n = "drill-deadline", 99
	dir := t.TempDir()
	write(t, dir, appDoc(ns, n, "v1"))
	// 101 writes, 32 in flight, 1 s each: four rounds, more than 3 s
	d.proxy.Set(testenv.Faults{Methods: []string{"PATCH"}, Latency: time.Second})
	start := time.Now()
	r := d.apply(t, "-f", dir, "--deadline", "3s")
	took := time.Since(start)
	t.Logf("apply with cluster2 slow, --deadline 3s: %s", took.Round(10*time.Millisecond))
	assertPartial(t, r.err, "cluster2")
	assert.Less(t, took, 10*time.Second)
	c2 := r.report.Clusters[1]
	notAttempted := 0
	for _, o := range c2.Objects {
		if o.Reason == propagate.ReasonDeadlineReached {
			notAttempted++
		}
	}
	require.Positive(t, notAttempted)
	assert.Contains(t, r.errOut, fmt.Sprintf("\n    %d objects not attempted: deadline reached\n", notAttempted))
	var detail []string
	for _, line := range strings.Split(r.errOut, "\n") {
		if strings.HasPrefix(line, "    ") {
			detail = append(detail, line)
		}
	}
	assert.LessOrEqual(t, len(detail), 2, "one line for what was not attempted, one for what was cut off:\n%s", strings.Join(detail, "\n"))
	for _, c := range []string{"cluster1", "cluster3"} {
		assert.Contains(t, r.errOut, fmt.Sprintf("✓ cluster %s: %d created\n", c, n+2))
	}
}
