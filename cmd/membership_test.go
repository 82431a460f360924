package cmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// liveFederation points fedctl at the test clusters' kubeconfig and a new,
// empty federation file, and returns the file's path.
func liveFederation(t *testing.T) (string, *testenv.Env) {
	t.Helper()
	e := testenv.Require(t, env)
	t.Setenv("KUBECONFIG", e.Kubeconfig)
	t.Setenv("NO_COLOR", "1")
	path := filepath.Join(t.TempDir(), "federation.yaml")
	t.Setenv("FEDCTL_CONFIG", path)
	return path, e
}

func loadMembers(t *testing.T, path string) *members.Federation {
	t.Helper()
	f, err := members.Load(path)
	require.NoError(t, err)
	return f.Federation
}

func TestJoinLiveCluster(t *testing.T) {
	path, _ := liveFederation(t)

	r := execute(t, "join", "cluster1", "--label", "region=eu-west-1")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "✓ cluster/cluster1 joined (context cluster1, Kubernetes "+testenv.KubernetesVersion+")\n", r.errOut)
	assert.Empty(t, r.out)
	fed := loadMembers(t, path)
	assert.Equal(t, []members.Member{{Name: "cluster1", Labels: map[string]string{"region": "eu-west-1"}}}, fed.Clusters)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), env.Cluster("cluster1").Token, "the federation file never holds credentials")

	// Joining the same name again needs --overwrite, and the file is kept.
	r = execute(t, "join", "cluster1", "--cluster-context", "cluster2")
	assert.Equal(t, ExitError, r.code)
	assert.Equal(t, "error: cluster \"cluster1\" is already a member (context \"cluster1\"); use --overwrite to replace it\n", r.errOut)
	assert.Equal(t, data, mustRead(t, path))

	// --overwrite replaces how the member is reached, as kubefedctl's
	// --error-on-existing=false patches the KubeFedCluster's spec only:
	// its labels stay, and so does a cordon (or a migration), which would
	// otherwise put objects back on it mid-drain.
	r = execute(t, "cordon", "cluster1", "--reason", "upgrade")
	require.Equal(t, ExitOK, r.code, r.errOut)
	r = execute(t, "join", "cluster1", "--cluster-context", "cluster2", "--overwrite", "-o", "name")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "cluster/cluster1\n", r.out)
	m, _ := loadMembers(t, path).Member("cluster1")
	assert.Equal(t, "cluster2", m.Context)
	assert.Equal(t, map[string]string{"region": "eu-west-1"}, m.Labels, "labels kept")
	require.NotNil(t, m.Cordoned, "the cordon is kept")
	assert.Equal(t, "upgrade", m.Cordoned.Reason)

	r = execute(t, "join", "cluster1", "--cluster-context", "cluster1", "--label", "tier=prod", "--overwrite")
	require.Equal(t, ExitOK, r.code, r.errOut)
	m, _ = loadMembers(t, path).Member("cluster1")
	assert.Equal(t, map[string]string{"tier": "prod"}, m.Labels, "labels given replace the old ones")
	assert.NotNil(t, m.Cordoned)
}

func TestJoinRejectsUnusableClusters(t *testing.T) {
	path, e := liveFederation(t)
	require.Equal(t, ExitOK, execute(t, "join", "cluster3").code)
	before := mustRead(t, path)

	// A kubeconfig with one more context, pointing at a port nobody listens on.
	refusedServer := "https://127.0.0.1:" + fmt.Sprint(testenv.ClosedPort(t))
	refusedKubeconfig := e.KubeconfigWith(t, "refused", refusedServer)
	// and one whose user has no credentials: the API server's anonymous
	// user, which default RBAC lets read /readyz and /version
	anonymous, err := clientcmd.LoadFromFile(e.Kubeconfig)
	require.NoError(t, err)
	anonymous.AuthInfos["nobody"] = clientcmdapi.NewAuthInfo()
	anonymous.Contexts["anonymous"] = &clientcmdapi.Context{Cluster: anonymous.Contexts["cluster1"].Cluster, AuthInfo: "nobody"}
	anonymousKubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*anonymous, anonymousKubeconfig))
	// and one more context for cluster3, a member already
	againKubeconfig := e.KubeconfigVia(t, "cluster3-again", "cluster3", e.Cluster("cluster3").Server)

	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{
			name:    "a missing context lists the available ones",
			args:    []string{"join", "x", "--cluster-context", "nope"},
			wantErr: "error: cannot join x: cluster x: context \"nope\" in KUBECONFIG=" + e.Kubeconfig + ": not found; available contexts: cluster1, cluster1-badcreds, cluster2, cluster3\n",
		},
		{
			name:    "bad credentials are named as such",
			args:    []string{"join", "x", "--cluster-context", "cluster1-badcreds"},
			wantErr: "error: cannot join x: cluster x: API server " + e.Cluster("cluster1").Server + " (context \"cluster1-badcreds\") rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig\n",
		},
		{
			name:    "a refused connection asks whether the cluster runs",
			args:    []string{"join", "x", "--cluster-context", "refused", "--kubeconfig", refusedKubeconfig},
			wantErr: "error: cannot join x: cluster x: API server " + refusedServer + " (context \"refused\") refused the connection; is the cluster running?\n",
		},
		{
			name:    "no credentials is refused",
			args:    []string{"join", "x", "--cluster-context", "anonymous", "--kubeconfig", anonymousKubeconfig},
			wantErr: "error: cannot join x: cluster x: context \"anonymous\" reaches " + e.Cluster("cluster1").Server + " without credentials (as system:anonymous); add a user with credentials to the context\n",
		},
		{
			name:    "a second member of one cluster is refused",
			args:    []string{"join", "x", "--cluster-context", "cluster3-again", "--kubeconfig", againKubeconfig},
			wantErr: "error: cannot join x: context \"cluster3-again\" reaches the API server of member cluster3 (context \"cluster3\"); a second member of the same cluster would get every object twice (fedctl unjoin cluster3 first to rename it)\n",
		},
		{
			name:    "an invalid name is a usage error",
			args:    []string{"join", "Not_A_Name"},
			wantErr: "error: invalid cluster name \"Not_A_Name\": a lowercase RFC 1123 subdomain",
		},
		{
			name:    "an invalid label is a usage error",
			args:    []string{"join", "x", "--label", "tier"},
			wantErr: "error: --label must be KEY=VALUE, got \"tier\"\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, tt.args...)
			assert.NotEqual(t, ExitOK, r.code)
			assert.True(t, strings.HasPrefix(r.errOut, tt.wantErr), "stderr:\n%s\nwant prefix:\n%s", r.errOut, tt.wantErr)
			assert.Equal(t, before, mustRead(t, path), "the federation file is unchanged")
		})
	}
}

func TestJoinDryRunWritesNothing(t *testing.T) {
	path, _ := liveFederation(t)
	r := execute(t, "join", "cluster2", "--label", "tier=prod", "--dry-run")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
  - name: cluster2
    labels:
      tier: prod
types: []
`, r.out)
	assert.Contains(t, r.errOut, "cluster/cluster2 would be joined (context cluster2, Kubernetes "+testenv.KubernetesVersion+"); dry run, "+path+" not written")
	_, err := os.Stat(path)
	assert.True(t, os.IsNotExist(err), "dry run created the federation file")
}

func TestUnjoinSaysWhatStaysRunning(t *testing.T) {
	path, e := liveFederation(t)
	require.Equal(t, ExitOK, execute(t, "join", "cluster2").code)
	require.Equal(t, ExitOK, execute(t, "join", "cluster3").code)

	cfg, err := e.RESTConfig("cluster2")
	require.NoError(t, err)
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	fedctlLabels := map[string]string{"kubefed.io/managed": "true", "app.kubernetes.io/managed-by": "fedctl"}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "unjoin-shop", Labels: fedctlLabels}}
	_, err = client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}) })
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "managed-unjoin", Namespace: "unjoin-shop", Labels: fedctlLabels}},
		{ObjectMeta: metav1.ObjectMeta{Name: "also-managed", Namespace: "default", Labels: fedctlLabels}},
		// another tool's, labelled as KubeFed's: not fedctl's to list
		{ObjectMeta: metav1.ObjectMeta{Name: "kubefed-only", Namespace: "default", Labels: map[string]string{"kubefed.io/managed": "true"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "not-managed-unjoin", Namespace: "default"}},
	} {
		_, err := client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = client.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{}) })
	}

	// A dry run lists the same and keeps the member.
	r := execute(t, "unjoin", "cluster2", "--dry-run=client")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Contains(t, r.errOut, "cluster/cluster2 would be unjoined; dry run")
	assert.Equal(t, []string{"cluster2", "cluster3"}, loadMembers(t, path).Names())

	// Namespaces are listed apart and never in the delete command: deleting
	// one deletes everything in it (issue 11: the old hint deleted them).
	r = execute(t, "unjoin", "cluster2")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, `✓ cluster/cluster2 unjoined
! left running in cluster cluster2, no longer managed by fedctl (label app.kubernetes.io/managed-by=fedctl): 2 configmaps, 1 namespaces
  configmaps: default/also-managed, unjoin-shop/managed-unjoin
  to delete them, namespaces excepted: kubectl --context cluster2 delete configmaps -A -l app.kubernetes.io/managed-by=fedctl
  namespaces: unjoin-shop
  namespaces are in no delete command: deleting one deletes everything in it, not only what fedctl created; check what each holds (kubectl --context cluster2 get all -n NAMESPACE) first
`, r.errOut)
	for _, line := range strings.Split(r.errOut, "\n") {
		if _, command, ok := strings.Cut(line, "kubectl "); ok && strings.Contains(command, " delete ") {
			resources := strings.Fields(strings.SplitN(command, " delete ", 2)[1])[0]
			assert.NotContains(t, strings.Split(resources, ","), "namespaces", "a suggested delete command never names namespaces: %s", line)
		}
	}
	assert.Equal(t, []string{"cluster3"}, loadMembers(t, path).Names())

	r = execute(t, "unjoin", "cluster3")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "✓ cluster/cluster3 unjoined\nno objects managed by the federation remain in cluster cluster3\n", r.errOut)

	r = execute(t, "unjoin", "cluster3")
	assert.Equal(t, ExitError, r.code)
	assert.Equal(t, "error: cluster \"cluster3\" is not a member: the federation has no members yet; run \"fedctl join cluster3 --cluster-context CONTEXT\"\n", r.errOut)
}

func TestLabelCluster(t *testing.T) {
	path, _ := liveFederation(t)
	require.Equal(t, ExitOK, execute(t, "join", "cluster1", "--label", "region=eu").code)

	r := execute(t, "label", "cluster", "cluster1", "tier=prod", "zone=a")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "✓ cluster/cluster1 labeled\n", r.errOut)
	m, _ := loadMembers(t, path).Member("cluster1")
	assert.Equal(t, map[string]string{"region": "eu", "tier": "prod", "zone": "a"}, m.Labels)

	before := mustRead(t, path)
	r = execute(t, "label", "cluster", "cluster1", "tier=dev")
	assert.Equal(t, ExitError, r.code)
	assert.Equal(t, "error: cluster cluster1: label \"tier\" already has a value (prod), and --overwrite is false\n", r.errOut)
	assert.Equal(t, before, mustRead(t, path))

	r = execute(t, "label", "clusters", "cluster1", "tier=dev", "zone-", "missing-", "--overwrite")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "! label \"missing\" not found\n✓ cluster/cluster1 labeled\n", r.errOut)
	m, _ = loadMembers(t, path).Member("cluster1")
	assert.Equal(t, map[string]string{"region": "eu", "tier": "dev"}, m.Labels)

	r = execute(t, "label", "cluster", "cluster1", "--list")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "region=eu\ntier=dev\n", r.out)

	// with changes, as kubectl label --list: the labels they would give,
	// and nothing written
	before = mustRead(t, path)
	r = execute(t, "label", "cluster", "cluster1", "tier=staging", "region-", "team=web", "--overwrite", "--list")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "team=web\ntier=staging\n", r.out)
	assert.Equal(t, before, mustRead(t, path))

	r = execute(t, "label", "cluster", "cluster9", "a=b")
	assert.Equal(t, ExitError, r.code)
	assert.Equal(t, "error: cluster \"cluster9\" is not a member (members: cluster1)\n", r.errOut)
}

func TestGetClustersFollowsHealth(t *testing.T) {
	path, e := liveFederation(t)
	for i, name := range []string{"cluster1", "cluster2", "cluster3"} {
		r := execute(t, "join", name, "--label", fmt.Sprintf("n=%d", i+1))
		require.Equal(t, ExitOK, r.code, r.errOut)
	}
	v := testenv.KubernetesVersion
	r := execute(t, "get", "clusters")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, fmt.Sprintf(`NAME       READY   VERSION
cluster1   True    %[1]s
cluster2   True    %[1]s
cluster3   True    %[1]s
`, v), r.out)

	require.NoError(t, e.StopCluster("cluster2"))
	stopped := true
	t.Cleanup(func() {
		if stopped {
			_ = e.StartCluster(context.Background(), "cluster2")
		}
	})
	start := time.Now()
	r = execute(t, "get", "clusters", "-o", "wide", "--timeout", "3s")
	took := time.Since(start)
	// An offline member is in the table, and the exit code is 3 so that a
	// pipeline stops on an unhealthy federation (issue 11).
	require.Equal(t, ExitPartial, r.code, r.errOut)
	assert.Equal(t, "error: 1 of 3 member cluster(s) not ready: cluster2 (Offline); --ignore-not-ready to exit 0 all the same\n", r.errOut)
	server2 := e.Cluster("cluster2").Server
	require.Len(t, v, 8, "the table below assumes an 8-character version")
	wide := func(name, ready, version, labels, message string) string {
		return fmt.Sprintf("%-11s%-10s%-11s%-11s%-9s%s\n", name, ready, version, name, labels, message)
	}
	assert.Equal(t, fmt.Sprintf("%-11s%-10s%-11s%-11s%-9s%s\n", "NAME", "READY", "VERSION", "CONTEXT", "LABELS", "MESSAGE")+
		wide("cluster1", "True", v, "n=1", "/healthz responded with ok")+
		wide("cluster2", "Offline", "<none>", "n=2", `cluster cluster2: API server `+server2+` (context "cluster2") refused the connection; is the cluster running?`)+
		wide("cluster3", "True", v, "n=3", "/healthz responded with ok"), r.out)
	assert.Less(t, took, 3*time.Second, "members are probed in parallel within --timeout")

	r = execute(t, "get", "clusters", "cluster2", "-o", "yaml")
	require.Equal(t, ExitError, r.code, "every output format exits non-zero, 1 when no member asked for is ready: %s", r.errOut)
	assert.Equal(t, fmt.Sprintf(`apiVersion: fedctl.io/v1alpha1
items:
- labels:
    "n": "2"
  name: cluster2
  status:
    conditions:
    - message: 'cluster cluster2: API server %s (context "cluster2")
        refused the connection; is the cluster running?'
      reason: ClusterNotReachable
      status: "True"
      type: Offline
kind: ClusterList
`, server2), r.out)

	// --ignore-not-ready relaxes the exit code, not the report.
	r = execute(t, "get", "clusters", "--ignore-not-ready")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Regexp(t, `cluster2\s+Offline\s`, r.out)
	assert.Empty(t, r.errOut)
	// -o name probes nothing, so it knows of no member that is not ready.
	r = execute(t, "get", "clusters", "-o", "name")
	require.Equal(t, ExitOK, r.code, r.errOut)

	require.NoError(t, e.StartCluster(context.Background(), "cluster2"))
	stopped = false
	r = execute(t, "get", "clusters", "-o", "name")
	assert.Equal(t, "cluster/cluster1\ncluster/cluster2\ncluster/cluster3\n", r.out)
	r = execute(t, "get", "clusters", "cluster2", "-o", "json")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Contains(t, r.out, `"type": "Ready",`)
	assert.Contains(t, r.out, `"reason": "ClusterReady",`)
	assert.Contains(t, r.out, `"kubernetesVersion": "`+v+`"`)

	// A member whose context is gone from the kubeconfig is ConfigMalformed.
	fed := loadMembers(t, path)
	require.NoError(t, fed.Put(members.Member{Name: "ghost", Context: "no-such-context"}, false))
	f, err := members.Load(path)
	require.NoError(t, err)
	require.NoError(t, f.Save(fed))
	r = execute(t, "get", "clusters", "ghost", "cluster1")
	require.Equal(t, ExitPartial, r.code, r.errOut)
	assert.Equal(t, "error: 1 of 2 member cluster(s) not ready: ghost (ConfigMalformed); --ignore-not-ready to exit 0 all the same\n", r.errOut)
	assert.Equal(t, fmt.Sprintf("NAME       READY             VERSION\ncluster1   True              %s\nghost      ConfigMalformed   <none>\n", v), r.out)

	// none ready: nothing could be reached, exit 1 as get TYPE and status
	r = execute(t, "get", "clusters", "ghost")
	require.Equal(t, ExitError, r.code, r.errOut)
	assert.Equal(t, "error: 1 of 1 member cluster(s) not ready: ghost (ConfigMalformed); --ignore-not-ready to exit 0 all the same\n", r.errOut)
}

// TestBinary runs the built fedctl as a user does, for what only a real
// process shows: exit codes and that errors are single lines, not traces.
func TestBinary(t *testing.T) {
	_, _ = liveFederation(t)
	bin := filepath.Join(t.TempDir(), "fedctl")
	build := exec.Command("go", "build", "-o", bin, "..")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		code := 0
		if exitErr, ok := err.(*exec.ExitError); ok {
			code = exitErr.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return out.String(), errOut.String(), code
	}
	_, errOut, code := run("join", "cluster1")
	assert.Equal(t, 0, code, errOut)
	out, errOut, code := run("get", "clusters", "-o", "name")
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "cluster/cluster1\n", out)
	_, errOut, code = run("join", "cluster1")
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), "one line, no stack trace: %s", errOut)
	_, _, code = run("get", "clusters", "--nope")
	assert.Equal(t, 2, code)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// TestMembersAreNotRateLimitedWithAPF: the test API servers, like every
// API server since 1.20, answer with API Priority and Fairness's headers,
// so fedctl lifts its client-side limit after the first response: 300
// requests go through a bucket of 5 per second in well under the minute
// the bucket alone would take.
func TestMembersAreNotRateLimitedWithAPF(t *testing.T) {
	e := testenv.Require(t, env)
	cfg, err := members.Access{Kubeconfig: e.Kubeconfig, QPS: 5, Burst: 1}.RESTConfig(members.Member{Name: "cluster1"})
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	start := time.Now()
	for range 300 {
		_, err := cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
		require.NoError(t, err)
	}
	took := time.Since(start)
	t.Logf("300 GETs in %s", took)
	assert.Less(t, took, 30*time.Second, "a bucket of 5/s would need 60 s")
}

// TestCompletionFromMembers: what only the members know completes from
// them, within cmdutil.CompletionTimeout: namespaces for -n, the names of
// the objects fedctl manages for "get TYPE", the types a member serves for
// enable (those in effect left out).
func TestCompletionFromMembers(t *testing.T) {
	_, e := liveFederation(t)
	for _, name := range []string{"cluster1", "cluster2"} {
		require.Equal(t, ExitOK, execute(t, "join", name).code)
	}
	cfg, err := e.RESTConfig("cluster2")
	require.NoError(t, err)
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "complete-me"}}
	_, err = client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = client.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{}) })
	for _, cm := range []*corev1.ConfigMap{
		{ObjectMeta: metav1.ObjectMeta{Name: "complete-web", Namespace: "default", Labels: map[string]string{"app.kubernetes.io/managed-by": "fedctl"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "complete-db", Namespace: "complete-me", Labels: map[string]string{"app.kubernetes.io/managed-by": "fedctl"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "complete-not-ours", Namespace: "default"}},
	} {
		_, err := client.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, cm, metav1.CreateOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = client.CoreV1().ConfigMaps(cm.Namespace).Delete(ctx, cm.Name, metav1.DeleteOptions{}) })
	}

	complete := func(args ...string) string {
		t.Helper()
		start := time.Now()
		r := execute(t, append([]string{"__complete"}, args...)...)
		require.Equal(t, ExitOK, r.code, r.errOut)
		assert.Less(t, time.Since(start), 5*time.Second, "completion is quick")
		return r.out
	}
	// -n: cluster1, the first member, has no complete-me; it answers first
	assert.Equal(t, "kube-node-lease\nkube-public\nkube-system\n:4\n", complete("get", "configmaps", "-n", "kube"))
	assert.Equal(t, "default\n:4\n", complete("status", "-f", "x", "-n", "def"))
	assert.Equal(t, ":4\n", complete("apply", "-f", "x", "-n", "complete"), "the first member that answers decides")
	assert.Equal(t, "complete-me\n:4\n", complete("apply", "-f", "x", "--cluster", "cluster2", "-n", "complete"),
		"--cluster chooses the member asked")

	// get TYPE NAME: fedctl's objects only, in -n, -A or the context's namespace
	assert.Equal(t, "complete-web\n:4\n", complete("get", "configmaps", "complete"))
	assert.Equal(t, "complete-db\n:4\n", complete("get", "cm", "-n", "complete-me", "complete"))
	assert.Equal(t, "complete-db\ncomplete-web\n:4\n", complete("get", "configmaps", "-A", "complete"))
	assert.Equal(t, ":4\n", complete("get", "configmaps", "--cluster", "cluster1", "complete"), "only the members selected")

	// enable TYPE: what the member serves, not what is in effect already
	assert.Equal(t, "statefulsets.apps\n:4\n", complete("enable", "statefulsets"))
	assert.Equal(t, ":4\n", complete("enable", "deployments.apps"), "a default type is in effect")
}
