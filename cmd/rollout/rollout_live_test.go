package rollout

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedctl/fedctl/cmd/apply"
	deletecmd "github.com/fedctl/fedctl/cmd/delete"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/rollout"
	"github.com/fedctl/fedctl/pkg/testenv"
)

var (
	deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	configMaps  = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// federation is cluster1 (the canary), cluster2 (eu) and cluster3, with
// waves canary, eu and rest; extra is appended to the rollout block.
func federation(extra string) string {
	return `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: cluster1
  labels: {tier: canary, region: eu}
- name: cluster2
  labels: {region: eu}
- name: cluster3
  labels: {region: us}
types: []
rollout:
  waves:
  - name: canary
    clusterSelector: {matchLabels: {tier: canary}}
  - name: eu
    clusterSelector: {matchLabels: {region: eu}}
  - name: rest
` + extra
}

// app is a namespace with a ConfigMap, a Service and a Deployment of two
// replicas in every member; with badIn, the Deployment's pods there ask for
// a node no member has, so it never becomes available.
func app(ns, value, badIn string) string {
	doc := fmt.Sprintf(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %[1]s, namespace: %[1]s}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: settings, namespace: %[1]s}
spec:
  template: {data: {value: %[2]q}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: web, namespace: %[1]s}
spec:
  template:
    spec:
      selector: {app: web}
      ports: [{port: 80}]
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: %[1]s}
spec:
  template:
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: "nginx:1.27"}]
  placement: {clusterSelector: {}}
`, ns, value)
	if badIn != "" {
		doc += fmt.Sprintf(`  overrides:
  - clusterName: %s
    clusterOverrides:
    - {path: /spec/template/spec/nodeSelector, value: {no-such-node: "true"}}
`, badIn)
	}
	return doc
}

// counter counts the requests of -v 6's request log, by member and method.
type counter struct {
	mu     sync.Mutex
	counts map[string]map[string]int
	// patches are the times of each member's writes.
	patches map[string][]time.Time
}

func newCounter() *counter {
	return &counter{counts: map[string]map[string]int{}, patches: map[string][]time.Time{}}
}

func (c *counter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		member := strings.Trim(f[0], "[]")
		if c.counts[member] == nil {
			c.counts[member] = map[string]int{}
		}
		c.counts[member][f[1]]++
		if f[1] == "PATCH" {
			c.patches[member] = append(c.patches[member], time.Now())
		}
	}
	return len(p), nil
}

func (c *counter) requests(member string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, v := range c.counts[member] {
		n += v
	}
	return n
}

func (c *counter) writes(member string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.counts[member]
	return m["POST"] + m["PUT"] + m["PATCH"] + m["DELETE"]
}

type workspace struct {
	dir, fedPath, kubeconfig string
}

func newWorkspace(t *testing.T, fed, manifests string) *workspace {
	t.Helper()
	testenv.Require(t, env)
	w := &workspace{dir: t.TempDir(), kubeconfig: env.Kubeconfig}
	w.fedPath = filepath.Join(w.dir, "federation.yaml")
	require.NoError(t, os.WriteFile(w.fedPath, []byte(fed), 0o600))
	w.write(t, manifests)
	return w
}

func (w *workspace) write(t *testing.T, manifests string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(w.dir, "app"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(w.dir, "app", "app.yaml"), []byte(manifests), 0o600))
}

type run struct {
	out, errOut string
	err         error
	report      rollout.Report
	requests    *counter
}

func (r run) wave(name string) rollout.WaveResult {
	for _, w := range r.report.Waves {
		if w.Name == name {
			return w
		}
	}
	return rollout.WaveResult{}
}

// apply runs fedctl apply -f app/ -o json with args, under ctx.
func (w *workspace) applyCtx(t *testing.T, ctx context.Context, args ...string) run {
	t.Helper()
	counter := newCounter()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams:  ios,
		Federation: func() (*members.File, error) { return members.Load(w.fedPath) },
		Access: func() (members.Access, error) {
			return members.Access{Kubeconfig: w.kubeconfig, RequestLog: counter}, nil
		},
	}
	cmd := apply.NewCmdApply(f, nil)
	cmd.SetArgs(append([]string{"-f", filepath.Join(w.dir, "app"), "-o", "json"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(ctx)
	r := run{out: out.String(), errOut: errOut.String(), err: err, requests: counter}
	t.Logf("fedctl apply %v\nstderr:\n%s", args, r.errOut)
	if slices.Contains(args, "--rollout") && out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &r.report), out.String())
	}
	return r
}

func (w *workspace) apply(t *testing.T, args ...string) run {
	t.Helper()
	return w.applyCtx(t, context.Background(), args...)
}

func (w *workspace) delete(t *testing.T, args ...string) run {
	t.Helper()
	counter := newCounter()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams:  ios,
		Federation: func() (*members.File, error) { return members.Load(w.fedPath) },
		Access: func() (members.Access, error) {
			return members.Access{Kubeconfig: w.kubeconfig, RequestLog: counter}, nil
		},
	}
	cmd := deletecmd.NewCmdDelete(f, nil)
	cmd.SetArgs(append([]string{"-f", filepath.Join(w.dir, "app"), "-o", "json"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	r := run{out: out.String(), errOut: errOut.String(), err: err, requests: counter}
	t.Logf("fedctl delete %v\nstderr:\n%s", args, r.errOut)
	if slices.Contains(args, "--rollout") && out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &r.report), out.String())
	}
	return r
}

func exists(t *testing.T, cluster string, gvr schema.GroupVersionResource, ns, name string) bool {
	t.Helper()
	_, err := env.Dynamic(t, cluster).Resource(gvr).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	require.NoError(t, err)
	return true
}

// TestRolloutStopsAndResumes: the eu wave's Deployment cannot become
// available in cluster2, so the rollout stops there with exit 3: canary
// done, cluster3 (rest) got no request at all and holds nothing. After the
// fix, the same command resumes: no write to the canary, eu and rest done.
func TestRolloutStopsAndResumes(t *testing.T) {
	const ns = "rollout-stop"
	w := newWorkspace(t, federation("  timeout: 20s\n"), app(ns, "v1", "cluster2"))

	r := w.apply(t, "--rollout")
	require.Error(t, r.err)
	assert.Equal(t, 3, cmdutil.ExitCodeOf(r.err), "%v", r.err)
	assert.Contains(t, r.err.Error(), "rollout stopped at wave eu: not Current within the wave timeout 20s: 1 of 1 members failed (maxFailures 0): cluster2: Deployment rollout-stop/web: InProgress")
	assert.Contains(t, r.err.Error(), "not touched: rest (cluster3)")
	assert.Equal(t, rollout.Succeeded, r.wave("canary").State)
	assert.Equal(t, rollout.Failed, r.wave("eu").State)
	assert.Equal(t, []string{"cluster2"}, r.wave("eu").FailedClusters)
	assert.NotEmpty(t, r.wave("eu").NotReady)
	assert.Equal(t, rollout.NotStarted, r.wave("rest").State)
	assert.Equal(t, "eu", r.report.StoppedAt)
	assert.True(t, exists(t, "cluster1", deployments, ns, "web"))
	assert.Zero(t, r.requests.requests("cluster3"), "a later wave's member gets no request at all")
	assert.False(t, exists(t, "cluster3", configMaps, ns, "settings"), "nor any object")
	assert.Contains(t, r.errOut, "not touched: rest (cluster3)")

	// the fix: the override goes; re-running resumes
	w.write(t, app(ns, "v1", ""))
	r = w.apply(t, "--rollout")
	require.NoError(t, r.err, r.errOut)
	assert.Zero(t, r.requests.writes("cluster1"), "the healthy canary gets no write")
	for _, wave := range []string{"canary", "eu", "rest"} {
		assert.Equal(t, rollout.Succeeded, r.wave(wave).State, wave)
	}
	assert.True(t, exists(t, "cluster3", deployments, ns, "web"))
}

// TestRolloutFromAndToWave: --to-wave canary writes the canary alone;
// --from-wave rest checks canary and eu without writing and rolls out rest.
func TestRolloutFromAndToWave(t *testing.T) {
	const ns = "rollout-fromto"
	w := newWorkspace(t, federation("  timeout: 30s\n"), app(ns, "v1", ""))

	r := w.apply(t, "--rollout", "--to-wave", "canary")
	require.NoError(t, r.err, r.errOut)
	assert.Equal(t, rollout.Succeeded, r.wave("canary").State)
	assert.Equal(t, rollout.NotStarted, r.wave("eu").State)
	assert.Contains(t, r.errOut, "--to-wave canary: later waves are left for another run")
	assert.Zero(t, r.requests.requests("cluster2"))
	assert.Zero(t, r.requests.requests("cluster3"))

	// eu by hand, so that --from-wave rest finds it Current
	r = w.apply(t, "--rollout", "--from-wave", "eu", "--to-wave", "eu")
	require.NoError(t, r.err, r.errOut)
	assert.Equal(t, rollout.Checked, r.wave("canary").State)
	assert.Zero(t, r.requests.writes("cluster1"), "a checked wave is not written")
	assert.Equal(t, rollout.Succeeded, r.wave("eu").State)
	assert.Zero(t, r.requests.requests("cluster3"))

	r = w.apply(t, "--rollout", "--from-wave", "rest")
	require.NoError(t, r.err, r.errOut)
	assert.Equal(t, rollout.Checked, r.wave("canary").State)
	assert.Equal(t, rollout.Checked, r.wave("eu").State)
	assert.Zero(t, r.requests.writes("cluster1"))
	assert.Zero(t, r.requests.writes("cluster2"))
	assert.Equal(t, rollout.Succeeded, r.wave("rest").State)
	assert.True(t, exists(t, "cluster3", configMaps, ns, "settings"))

	r = w.apply(t, "--rollout", "--from-wave", "rest", "--to-wave", "canary")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "--from-wave rest comes after --to-wave canary")
	assert.Equal(t, cmdutil.ExitUsage, cmdutil.ExitCodeOf(r.err))
	r = w.apply(t, "--rollout", "--waves", "canary,nope")
	assert.Equal(t, cmdutil.ExitUsage, cmdutil.ExitCodeOf(r.err), "a bad --waves is a usage error")
}

// TestRolloutGate: the gate runs after each wave with the wave's name,
// members and contexts, and a KUBECONFIG whose context of each name
// reaches that member as fedctl does (whatever the user's own kubeconfig
// calls by that name), removed after the run; its failure at eu stops the
// rollout there.
func TestRolloutGate(t *testing.T) {
	const ns = "rollout-gate"
	w := newWorkspace(t, federation("  timeout: 30s\n"), app(ns, "v1", ""))
	log := filepath.Join(w.dir, "gate.log")
	gate := fmt.Sprintf(`echo "$FEDCTL_WAVE $FEDCTL_CLUSTERS $FEDCTL_CONTEXTS" >> %[1]s; echo "$KUBECONFIG" > %[2]s; own="${KUBECONFIG%%%%:*}"; cp "$own" %[2]s.$FEDCTL_WAVE; stat -c %%a "$own" > %[2]s.mode; test "$FEDCTL_WAVE" != eu`,
		log, filepath.Join(w.dir, "gate-kubeconfig"))
	r := w.apply(t, "--rollout", "--gate", gate)
	require.Error(t, r.err)
	assert.Equal(t, 3, cmdutil.ExitCodeOf(r.err))
	assert.Equal(t, rollout.Succeeded, r.wave("canary").State)
	assert.Equal(t, rollout.Failed, r.wave("eu").State)
	require.NotNil(t, r.wave("eu").Gate)
	assert.Equal(t, 1, r.wave("eu").Gate.ExitCode)
	assert.Contains(t, r.err.Error(), "exited 1")
	assert.Equal(t, rollout.NotStarted, r.wave("rest").State)
	assert.Zero(t, r.requests.requests("cluster3"))
	got, err := os.ReadFile(log)
	require.NoError(t, err)
	assert.Equal(t, "canary cluster1 cluster1\neu cluster2 cluster2\n", string(got))

	paths, err := os.ReadFile(filepath.Join(w.dir, "gate-kubeconfig"))
	require.NoError(t, err)
	list := filepath.SplitList(strings.TrimSpace(string(paths)))
	require.Len(t, list, 2, "fedctl's kubeconfig, then the user's")
	assert.Equal(t, w.kubeconfig, list[1], "the user's contexts stay reachable")
	_, err = os.Stat(list[0])
	assert.True(t, os.IsNotExist(err), "the gate's kubeconfig is removed after the run: %v", err)
	mode, err := os.ReadFile(filepath.Join(w.dir, "gate-kubeconfig.mode"))
	require.NoError(t, err)
	assert.Equal(t, "600", strings.TrimSpace(string(mode)), "it holds credentials")
	own, err := clientcmd.LoadFromFile(env.Kubeconfig)
	require.NoError(t, err)
	for wave, member := range map[string]string{"canary": "cluster1", "eu": "cluster2"} {
		cfg, err := clientcmd.LoadFromFile(filepath.Join(w.dir, "gate-kubeconfig."+wave))
		require.NoError(t, err)
		require.Contains(t, cfg.Contexts, member)
		assert.Equal(t, own.Clusters[own.Contexts[member].Cluster].Server, cfg.Clusters[cfg.Contexts[member].Cluster].Server, "%s's context reaches %s", wave, member)
		rc, err := clientcmd.NewNonInteractiveClientConfig(*cfg, member, &clientcmd.ConfigOverrides{}, nil).ClientConfig()
		require.NoError(t, err)
		dc, err := discovery.NewDiscoveryClientForConfig(rc)
		require.NoError(t, err)
		_, err = dc.ServerVersion()
		assert.NoError(t, err, "the gate's context %s works on its own: its credentials are inlined", member)
	}
}

// TestRolloutMaxFailures: with maxFailures 1 a wave goes on with one of its
// members down (a context whose server does not answer), and the rollout
// ends with exit 3 naming it; maxConcurrency 1 syncs the wave's members one
// after the other.
func TestRolloutMaxFailures(t *testing.T) {
	const ns = "rollout-maxfail"
	testenv.Require(t, env)
	// a context "down" with cluster1's credentials and a server that
	// refuses connections
	path := env.KubeconfigVia(t, "down", "cluster1", fmt.Sprintf("https://127.0.0.1:%d", testenv.ClosedPort(t)))

	fed := `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: cluster1
- name: cluster2
- name: cluster3
- name: down
types: []
rollout:
  waves:
  - name: first
    clusters: [cluster1]
  - name: second
    maxConcurrency: 1
  timeout: 30s
  maxFailures: 1
`
	w := newWorkspace(t, fed, app(ns, "v1", ""))
	w.kubeconfig = path
	r := w.apply(t, "--rollout", "--timeout", "2s")
	require.Error(t, r.err)
	assert.Equal(t, 3, cmdutil.ExitCodeOf(r.err), "%v", r.err)
	assert.Equal(t, rollout.Succeeded, r.wave("second").State, "one failure is within maxFailures")
	assert.Equal(t, []string{"down"}, r.wave("second").FailedClusters)
	assert.Contains(t, r.wave("second").Message, "down failed, within maxFailures 1")
	assert.True(t, exists(t, "cluster3", deployments, ns, "web"))

	// maxConcurrency 1: one member's writes all come before the other's
	p2, p3 := r.requests.patches["cluster2"], r.requests.patches["cluster3"]
	require.NotEmpty(t, p2)
	require.NotEmpty(t, p3)
	assert.True(t, p2[len(p2)-1].Before(p3[0]) || p3[len(p3)-1].Before(p2[0]), "cluster2 and cluster3 were not written at the same time")

	fed = strings.Replace(fed, "maxFailures: 1", "maxFailures: 0", 1)
	require.NoError(t, os.WriteFile(w.fedPath, []byte(fed), 0o600))
	w.write(t, app(ns, "v2", ""))
	r = w.apply(t, "--rollout", "--timeout", "2s")
	require.Error(t, r.err)
	assert.Equal(t, rollout.Failed, r.wave("second").State)
	assert.Contains(t, r.err.Error(), "rollout stopped at wave second: apply: 1 of 3 members failed (maxFailures 0): down:")
}

// TestRolloutSoak: an object that becomes unhealthy while its wave soaks
// (someone else gives the Deployment's pods a node selector no node
// matches, so its new pods never run) stops the rollout at the re-check.
func TestRolloutSoak(t *testing.T) {
	const ns = "rollout-soak"
	w := newWorkspace(t, federation("  timeout: 60s\n  soak: 12s\n"), app(ns, "v1", ""))
	done := make(chan struct{})
	go func() {
		defer close(done)
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) && !available(t, "cluster1", ns, "web") {
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(3 * time.Second) // Current by now, soaking
		patch := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"` + ns + `"},"spec":{"template":{"spec":{"nodeSelector":{"no-such-node":"true"}}}}}`)
		_, err := env.Dynamic(t, "cluster1").Resource(deployments).Namespace(ns).Patch(context.Background(), "web", types.ApplyPatchType, patch, metav1.PatchOptions{FieldManager: "someone"})
		assert.NoError(t, err)
	}()
	r := w.apply(t, "--rollout")
	<-done
	require.Error(t, r.err)
	assert.Equal(t, 3, cmdutil.ExitCodeOf(r.err))
	assert.Equal(t, rollout.Failed, r.wave("canary").State)
	assert.Contains(t, r.wave("canary").Message, "soak: 1 of 1 members failed")
	assert.Contains(t, r.wave("canary").Message, "after the soak: Deployment rollout-soak/web: InProgress")
	assert.Contains(t, r.errOut, "Current; soaking 12s")
	assert.Zero(t, r.requests.requests("cluster2"))
}

// available says whether the Deployment has all its replicas available.
func available(t *testing.T, cluster, ns, name string) bool {
	t.Helper()
	obj, err := env.Dynamic(t, cluster).Resource(deployments).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return false
	}
	st, _ := obj.Object["status"].(map[string]any)
	n, _ := st["availableReplicas"].(int64)
	return n == 2
}

// TestRolloutInterrupted: Ctrl-C mid-wave stops at once, reports the wave
// in progress, and later waves get no request; a re-run resumes.
func TestRolloutInterrupted(t *testing.T) {
	const ns = "rollout-interrupt"
	w := newWorkspace(t, federation("  timeout: 60s\n  soak: 30s\n"), app(ns, "v1", ""))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) && !available(t, "cluster1", ns, "web") {
			time.Sleep(200 * time.Millisecond)
		}
		time.Sleep(3 * time.Second)
		cancel()
	}()
	start := time.Now()
	r := w.applyCtx(t, ctx, "--rollout")
	require.Error(t, r.err)
	assert.ErrorIs(t, r.err, context.Canceled)
	assert.Less(t, time.Since(start), 25*time.Second, "stopped at once, not at the end of the soak")
	assert.Equal(t, rollout.Interrupted, r.wave("canary").State)
	assert.Equal(t, "canary", r.report.StoppedAt)
	assert.Zero(t, r.requests.requests("cluster2"))
	assert.Zero(t, r.requests.requests("cluster3"))

	require.NoError(t, os.WriteFile(w.fedPath, []byte(federation("  timeout: 60s\n")), 0o600))
	r = w.apply(t, "--rollout")
	require.NoError(t, r.err, r.errOut)
	assert.Zero(t, r.requests.writes("cluster1"), "resumed: the canary is unchanged")
	assert.True(t, exists(t, "cluster3", configMaps, ns, "settings"))
}

// TestRolloutDryRunAndDelete: --dry-run=server sends each wave as a dry
// run and waits for nothing; delete --rollout goes in reverse order, and
// --to-wave stops it after the first (rest).
func TestRolloutDryRunAndDelete(t *testing.T) {
	const ns = "rollout-delete"
	w := newWorkspace(t, federation("  timeout: 30s\n"), app(ns, "v1", ""))
	r := w.apply(t, "--rollout", "--dry-run=server")
	require.NoError(t, r.err, r.errOut)
	for _, wave := range []string{"canary", "eu", "rest"} {
		assert.Equal(t, rollout.DryRun, r.wave(wave).State, wave)
	}
	assert.False(t, exists(t, "cluster1", configMaps, ns, "settings"), "nothing written")

	r = w.apply(t, "--rollout")
	require.NoError(t, r.err, r.errOut)

	r = w.delete(t, "--rollout", "--to-wave", "rest")
	require.NoError(t, r.err, r.errOut)
	require.Len(t, r.report.Waves, 3)
	assert.Equal(t, []string{"rest", "eu", "canary"}, []string{r.report.Waves[0].Name, r.report.Waves[1].Name, r.report.Waves[2].Name}, "delete goes in reverse")
	assert.Equal(t, rollout.Succeeded, r.wave("rest").State)
	assert.False(t, exists(t, "cluster3", configMaps, ns, "settings"))
	assert.True(t, exists(t, "cluster1", configMaps, ns, "settings"), "the canary keeps it")
	assert.Zero(t, r.requests.requests("cluster1"))

	r = w.delete(t, "--rollout")
	require.NoError(t, r.err, r.errOut)
	assert.False(t, exists(t, "cluster1", configMaps, ns, "settings"))
}

// TestRolloutDeleteWaitsUntilGone: a delete wave is done when what it
// deleted is gone, not when the deletions were accepted: an object a
// finalizer holds keeps the wave from ending, so the wave fails at its
// timeout and the waves after it keep the application.
func TestRolloutDeleteWaitsUntilGone(t *testing.T) {
	const ns = "rollout-gone"
	// a second ConfigMap, so that the wait reads the two with one LIST
	extra := `---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: extra, namespace: ` + ns + `}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`
	w := newWorkspace(t, federation("  timeout: 4s\n"), app(ns, "v1", "")+extra)
	r := w.apply(t)
	require.NoError(t, r.err, r.errOut)
	held := []byte(`{"metadata":{"finalizers":["test.fedctl.io/hold"]}}`)
	cm := env.Dynamic(t, "cluster3").Resource(configMaps).Namespace(ns)
	_, err := cm.Patch(context.Background(), "settings", types.MergePatchType, held, metav1.PatchOptions{})
	require.NoError(t, err)

	r = w.delete(t, "--rollout")
	require.Error(t, r.err)
	require.Len(t, r.report.Waves, 3)
	rest := r.wave("rest")
	assert.Equal(t, rollout.Failed, rest.State)
	assert.Contains(t, rest.Message, "cluster3: not gone within the wave timeout 4s:")
	assert.Contains(t, rest.Message, "ConfigMap "+ns+"/settings")
	assert.NotContains(t, rest.Message, "extra", "gone, as the LIST of fedctl's ConfigMaps says")
	assert.Contains(t, r.errOut, "waiting until the 5 deleted objects are gone")
	assert.True(t, exists(t, "cluster2", configMaps, ns, "settings"), "the next wave did not start")
	assert.True(t, exists(t, "cluster1", configMaps, ns, "settings"))

	_, err = cm.Patch(context.Background(), "settings", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	// time for the namespace controller to empty and remove the Namespaces
	require.NoError(t, os.WriteFile(w.fedPath, []byte(federation("  timeout: 60s\n")), 0o600))
	r = w.delete(t, "--rollout")
	require.NoError(t, r.err, r.errOut)
	for _, wave := range []string{"rest", "eu", "canary"} {
		assert.Equal(t, rollout.Succeeded, r.wave(wave).State, wave)
	}
	assert.False(t, exists(t, "cluster1", configMaps, ns, "settings"))
}

func ptr[T any](v T) *T { return &v }
