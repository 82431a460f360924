package drain

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/testutil"
)

var deployments = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// app is a FederatedNamespace, a Deployment split 2/2/2 by an RSP whose
// pods each request cpu, and, when pinned, a ConfigMap listed for cluster2.
func app(ns, cpu string, pinned bool) string {
	doc := fmt.Sprintf(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %[1]s, namespace: %[1]s}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: %[1]s}
spec:
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: "nginx:1.27", resources: {requests: {cpu: "%[2]s"}}}]
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: %[1]s}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
`, ns, cpu)
	if pinned {
		doc += fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: local, namespace: %s}
spec:
  template: {data: {k: v}}
  placement:
    clusters: [{name: cluster2}]
`, ns)
	}
	return doc
}

type drainEnv struct {
	dir, fedPath string
	// kubeconfig is what the commands read; the test environment's
	// unless a test routes a member through a fault proxy.
	kubeconfig string
}

func newDrainEnv(t *testing.T, content string) *drainEnv {
	t.Helper()
	testenv.Require(t, env)
	d := &drainEnv{dir: t.TempDir(), kubeconfig: env.Kubeconfig}
	d.fedPath = filepath.Join(d.dir, "federation.yaml")
	require.NoError(t, os.WriteFile(d.fedPath, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: cluster1}, {name: cluster2}, {name: cluster3}]\ntypes: []\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(d.dir, "app"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(d.dir, "app", "app.yaml"), []byte(content), 0o600))
	d.apply(t)
	return d
}

// waitReady waits until the Deployment's pods are ready in every member,
// so that what they request is on the nodes when the drain reads them.
func waitReady(t *testing.T, ns string, names ...string) {
	t.Helper()
	if len(names) == 0 {
		names = []string{"web"}
	}
	require.Eventually(t, func() bool {
		for _, pair := range pairs([]string{"cluster1", "cluster2", "cluster3"}, names) {
			c, name := pair[0], pair[1]
			dc := env.Dynamic(t, c)
			obj, err := dc.Resource(deployments).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
			if err != nil {
				return false
			}
			spec, _ := obj.Object["spec"].(map[string]any)["replicas"].(int64)
			st, _ := obj.Object["status"].(map[string]any)
			ready, _ := st["readyReplicas"].(int64)
			if ready != spec {
				return false
			}
		}
		return true
	}, 60*time.Second, 200*time.Millisecond, "the Deployment ready in every member")
}

// apply applies the app as fedctl apply would, offline plan (a cordoned
// member keeps what runs there).
func (d *drainEnv) apply(t *testing.T) {
	t.Helper()
	file, err := members.Load(d.fedPath)
	require.NoError(t, err)
	fed := file.Federation
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, filepath.Join(d.dir, "app")), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	access := members.Access{Kubeconfig: env.Kubeconfig}
	report := propagate.Run(context.Background(), propagate.Input{Result: out.Result, Clusters: fed.Names(),
		Clients: members.Clients(fed, access, members.NewMemberClient), Options: propagate.Options{Cordoned: fed.CordonedNames()}})
	require.Empty(t, report.Failed())
}

func (d *drainEnv) drain(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return d.drainCluster(t, "cluster2", args...)
}

func (d *drainEnv) drainCluster(t *testing.T, cluster string, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams:  ios,
		Federation: func() (*members.File, error) { return members.Load(d.fedPath) },
		Access:     func() (members.Access, error) { return members.Access{Kubeconfig: d.kubeconfig}, nil },
	}
	cmd := NewCmdDrain(f, nil)
	cmd.SetArgs(append([]string{cluster, "-f", filepath.Join(d.dir, "app")}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	t.Logf("fedctl drain %v\nstdout:\n%s\nstderr:\n%s", args, out.String(), errOut.String())
	return out.String(), errOut.String(), err
}

func pairs(a, b []string) [][2]string {
	var out [][2]string
	for _, x := range a {
		for _, y := range b {
			out = append(out, [2]string{x, y})
		}
	}
	return out
}

func replicasIn(t *testing.T, cluster, ns string) (int64, bool) {
	t.Helper()
	return replicasOf(t, cluster, ns, "web")
}

func replicasOf(t *testing.T, cluster, ns, name string) (int64, bool) {
	t.Helper()
	c := env.Dynamic(t, cluster)
	obj, err := c.Resource(deployments).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, false
	}
	require.NoError(t, err)
	n, _ := obj.Object["spec"].(map[string]any)["replicas"].(int64)
	return n, true
}

func cordoned(t *testing.T, path string) bool {
	t.Helper()
	file, err := members.Load(path)
	require.NoError(t, err)
	return len(file.Federation.CordonedNames()) > 0
}

// TestDrain: with enough capacity, drain shows the replicas that move and
// the capacity table, cordons cluster2, moves its 2 replicas to the others
// (3/3), waits until they are Current, then removes the Deployment and the
// Namespace from cluster2. --dry-run before it changes nothing.
func TestDrain(t *testing.T) {
	const ns = "drainok"
	d := newDrainEnv(t, app(ns, "100m", false))

	out, errOut, err := d.drain(t, "--dry-run")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "FederatedDeployment drainok/web   cluster1   +1")
	assert.Regexp(t, `cluster1\s+cpu\s+100m\s+\S+\s+yes`, out)
	assert.Contains(t, errOut, "drain of cluster2 fits (dry run): nothing was changed")
	n, ok := replicasIn(t, "cluster2", ns)
	assert.True(t, ok)
	assert.Equal(t, int64(2), n, "a dry run changes nothing")
	assert.False(t, cordoned(t, d.fedPath))

	_, errOut, err = d.drain(t)
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "cluster/cluster2 cordoned")
	assert.Contains(t, errOut, "every moved object is Current in cluster1, cluster3")
	assert.Contains(t, errOut, "cluster/cluster2 drained: 2 objects removed")
	assert.True(t, cordoned(t, d.fedPath))
	for _, c := range []string{"cluster1", "cluster3"} {
		n, _ := replicasIn(t, c, ns)
		assert.Equal(t, int64(3), n, "in %s", c)
	}
	_, ok = replicasIn(t, "cluster2", ns)
	assert.False(t, ok, "removed from the drained member")
}

// TestDrainAfterCordonAndApply: cordon, an apply (which plans the
// member's share onto the others, while its own replicas stay), then a
// drain: the moves are counted from what runs, so nothing is counted as
// moving onto members that already run it.
func TestDrainAfterCordonAndApply(t *testing.T) {
	const ns = "draincordoned"
	d := newDrainEnv(t, app(ns, "100m", false))
	file, err := members.Load(d.fedPath)
	require.NoError(t, err)
	m, _ := file.Federation.Member("cluster2")
	m.Cordoned = &members.Cordon{Reason: "maintenance"}
	require.NoError(t, file.Federation.Put(m, true))
	require.NoError(t, file.Save(file.Federation))
	d.apply(t)
	n, _ := replicasIn(t, "cluster1", ns)
	require.Equal(t, int64(3), n, "the apply planned cluster2's share elsewhere")
	n, _ = replicasIn(t, "cluster2", ns)
	require.Equal(t, int64(2), n, "what runs in a cordoned member stays")

	out, errOut, err := d.drain(t, "--dry-run")
	require.NoError(t, err, errOut)
	assert.NotContains(t, out, ns+"/web", "no replica moves: cluster1 and cluster3 run their 3 already")
	assert.NotRegexp(t, `FederatedDeployment \S+/web\s+cluster\d\s+\+`, out)
}

// TestDrainShortOfCapacity: replicas that do not fit on the other members'
// nodes stop the drain before anything is written, with the shortfall per
// member and resource.
func TestDrainShortOfCapacity(t *testing.T) {
	const ns = "drainshort"
	// 2 pods of 12 cores each already take 24 of the fake node's 32.
	d := newDrainEnv(t, app(ns, "12", false))
	waitReady(t, ns)
	out, _, err := d.drain(t)
	require.Error(t, err)
	// Free is 32 minus what the pods already there request (these 24, and
	// whatever other tests left running on the shared node).
	assert.Regexp(t, `not enough capacity to drain cluster2: cluster1 cpu needs 12, \d+m? free; cluster3 cpu needs 12, \d+m? free; nothing was changed`, err.Error())
	assert.Regexp(t, `cluster1\s+cpu\s+12\s+\d+m?\s+no`, out)
	assert.False(t, cordoned(t, d.fedPath))
	n, ok := replicasIn(t, "cluster2", ns)
	assert.True(t, ok)
	assert.Equal(t, int64(2), n)

	// Cordoned first (kubectl's habit: cordon, then drain): its replicas
	// still run there and still do not fit elsewhere; the cordon must not
	// hide them from the check.
	file, err := members.Load(d.fedPath)
	require.NoError(t, err)
	m, _ := file.Federation.Member("cluster2")
	m.Cordoned = &members.Cordon{Reason: "maintenance"}
	require.NoError(t, file.Federation.Put(m, true))
	require.NoError(t, file.Save(file.Federation))
	_, _, err = d.drain(t)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not enough capacity to drain cluster2")
	n, _ = replicasIn(t, "cluster2", ns)
	assert.Equal(t, int64(2), n)
}

// TestDrainPinned: an object listed for the drained member blocks the
// drain with its file and line; --force drains it too.
func TestDrainPinned(t *testing.T) {
	const ns = "drainpinned"
	d := newDrainEnv(t, app(ns, "100m", true))
	_, _, err := d.drain(t)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "objects pinned to cluster2 by spec.placement.clusters block the drain")
	assert.Contains(t, err.Error(), "app.yaml:34: FederatedConfigMap drainpinned/local")
	assert.False(t, cordoned(t, d.fedPath))

	_, errOut, err := d.drain(t, "--force")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "cluster/cluster2 drained: 3 objects removed")
}

// workload is a FederatedDeployment of 6 replicas split 2/2/2 by an RSP
// with a minimum of min per member, each pod requesting memory, with the
// fedctl.io/priority annotation.
func workload(ns, name, memory string, priority, min int) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata:
  name: %[2]s
  namespace: %[1]s
  annotations: {fedctl.io/priority: "%[4]d"}
spec:
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: %[2]s}}
      template:
        metadata: {labels: {app: %[2]s}}
        spec:
          containers: [{name: app, image: "nginx:1.27", resources: {requests: {memory: "%[3]s"}}}]
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: %[2]s, namespace: %[1]s}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
  clusters:
    "*": {minReplicas: %[5]d, weight: 1}
`, ns, name, memory, priority, min)
}

// TestDrainDegrade: each member's node has 256Gi of memory, and the four
// pods of web and batch already there ask 50Gi each (no other test in this
// package asks memory), so 56Gi are free where the drain needs 100Gi for
// one more of each. Without --degrade the drain stops before any write;
// with it, batch (priority 1) gives up its extra replica and web
// (priority 10) keeps its: 3 web and 2 batch in cluster1 and cluster3.
func TestDrainDegrade(t *testing.T) {
	const ns = "draindegrade"
	d := newDrainEnv(t, fmt.Sprintf("apiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: %[1]s, namespace: %[1]s}\nspec:\n  placement: {clusterSelector: {}}\n", ns)+
		workload(ns, "web", "50Gi", 10, 1)+workload(ns, "batch", "50Gi", 1, 1))
	waitReady(t, ns, "web", "batch")

	out, _, err := d.drain(t)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not enough capacity to drain cluster2: cluster1 memory needs 102400Mi, 57344Mi free; cluster3 memory needs 102400Mi, 57344Mi free; nothing was changed (--degrade scales")
	assert.Regexp(t, `cluster1\s+memory\s+102400Mi\s+57344Mi\s+no`, out)
	assert.False(t, cordoned(t, d.fedPath))

	out, errOut, err := d.drain(t, "--degrade", "--dry-run")
	require.NoError(t, err, errOut)
	assert.Regexp(t, `DEGRADED\s+MEMBER\s+PLANNED\s+KEPT\s+MIN\s+PRIORITY\nFederatedDeployment draindegrade/batch\s+cluster1\s+3\s+2\s+1\s+1\nFederatedDeployment draindegrade/batch\s+cluster3\s+3\s+2\s+1\s+1\n`, out)
	assert.Regexp(t, `cluster1\s+memory\s+51200Mi\s+57344Mi\s+yes`, out)
	assert.Contains(t, errOut, "Warning: FederatedDeployment draindegrade/batch in cluster1 scaled down from 3 to 2 replicas to fit")
	assert.Contains(t, errOut, "drain of cluster2 fits (dry run): nothing was changed")
	assert.False(t, cordoned(t, d.fedPath))

	_, errOut, err = d.drain(t, "--degrade")
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "cluster/cluster2 drained: 3 objects removed")
	for _, c := range []string{"cluster1", "cluster3"} {
		n, _ := replicasOf(t, c, ns, "web")
		assert.Equal(t, int64(3), n, "web in %s", c)
		n, _ = replicasOf(t, c, ns, "batch")
		assert.Equal(t, int64(2), n, "batch in %s: scaled down", c)
	}
}

// TestDrainDestinationAnswers503: a destination whose nodes and pods
// answer 503 fails the drain within --timeout, naming it, and nothing is
// changed: no cordon recorded, nothing moved. (Its capacity read was
// retried for as long as the command ran.)
func TestDrainDestinationAnswers503(t *testing.T) {
	const ns = "drain503"
	e := testenv.Require(t, env)
	d := newDrainEnv(t, app(ns, "10m", false))
	p, err := e.StartFaultProxy("cluster3")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	p.Set(testenv.Faults{Status: 503, Paths: []string{"/api/v1/nodes", "/api/v1/pods", "/apis/apps/v1/namespaces/" + ns + "/deployments/web"}})
	d.kubeconfig = e.KubeconfigVia(t, "cluster3-proxied", "cluster3", p.Server)
	fedFile := "apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: cluster1}, {name: cluster2}, {name: cluster3, context: cluster3-proxied}]\ntypes: []\n"
	require.NoError(t, os.WriteFile(d.fedPath, []byte(fedFile), 0o600))

	start := time.Now()
	_, errOut, err := d.drain(t, "--timeout", "2s")
	took := time.Since(start)
	t.Logf("drain with cluster3 answering 503: %s: %v", took.Round(10*time.Millisecond), err)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cluster cluster3: reading its free capacity")
	assert.Contains(t, err.Error(), "nothing was changed")
	assert.Contains(t, errOut, "cluster cluster3: what it runs could not be read (its replica state could not be read: ", "said, not silently taken from the manifests")
	assert.NotContains(t, errOut, "cordoned")
	assert.Less(t, took, 30*time.Second, "bounded by --timeout 2s")
	requests, injected := p.Counts()
	assert.Positive(t, injected, "the 503s were served (%d requests)", requests)
	data, err := os.ReadFile(d.fedPath)
	require.NoError(t, err)
	assert.Equal(t, fedFile, string(data), "nothing recorded")
	n, ok := replicasIn(t, "cluster2", ns)
	assert.True(t, ok)
	assert.Equal(t, int64(2), n, "cluster2 keeps its replicas")
}
