package status

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/status"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/testutil"
)

var (
	clusterNames = []string{"cluster1", "cluster2", "cluster3"}
	cmGVR        = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	deployGVR    = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

func testFederation() *members.Federation {
	fed := members.New()
	for i, c := range clusterNames {
		_ = fed.Put(members.Member{Name: c, Labels: map[string]string{"region": []string{"eu", "eu", "us"}[i]}}, false)
	}
	return fed
}

// requestLog collects the request log members.Access writes, one line per
// request: "[cluster1] GET https://... 200 OK in 3ms".
type requestLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *requestLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, strings.Split(strings.TrimSpace(string(p)), "\n")...)
	return len(p), nil
}

// requests lists the method and path of each request sent to cluster.
func (l *requestLog) requests(cluster string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "["+cluster+"]" {
			out = append(out, f[1]+" "+portRE.ReplaceAllString(f[2], "HOST"))
		}
	}
	return out
}

var requests *requestLog // when set, runStatus logs requests into it

func factory(t *testing.T, ios *iostreams.IOStreams) *cmdutil.Factory {
	e := testenv.Require(t, env)
	fed := testFederation()
	return &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) {
			a := members.Access{Kubeconfig: e.Kubeconfig}
			if requests != nil {
				a.RequestLog = requests
			}
			return a, nil
		},
	}
}

// proxiedFactory is a factory for the members fed, whose contexts are in
// kubeconfig (one routed through a fault proxy).
func proxiedFactory(t *testing.T, ios *iostreams.IOStreams, fed *members.Federation, kubeconfig string) *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: kubeconfig}, nil },
	}
}

type statusRun struct {
	out, errOut string
	err         error
	took        time.Duration
}

// runStatus runs "fedctl status ARGS" against the test clusters.
func runStatus(t *testing.T, args ...string) statusRun {
	t.Helper()
	return runStatusWith(t, func(ios *iostreams.IOStreams) *cmdutil.Factory { return factory(t, ios) }, args...)
}

// runStatusVia runs "fedctl status ARGS" with fed's members reached
// through kubeconfig (see federationVia).
func runStatusVia(t *testing.T, fed *members.Federation, kubeconfig string, args ...string) statusRun {
	t.Helper()
	return runStatusWith(t, func(ios *iostreams.IOStreams) *cmdutil.Factory { return proxiedFactory(t, ios, fed, kubeconfig) }, args...)
}

// federationVia is the test federation with member cluster reached
// through kubeconfig context instead of its own.
func federationVia(t *testing.T, cluster, context string) *members.Federation {
	t.Helper()
	fed := testFederation()
	m, _ := fed.Member(cluster)
	m.Context = context
	require.NoError(t, fed.Put(m, true))
	return fed
}

func runStatusWith(t *testing.T, factoryOf func(*iostreams.IOStreams) *cmdutil.Factory, args ...string) statusRun {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	cmd := NewCmdStatus(factoryOf(ios), nil)
	cmd.SetArgs(append([]string{"--poll-interval", "200ms"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	start := time.Now()
	err := cmd.ExecuteContext(context.Background())
	r := statusRun{out: out.String(), errOut: errOut.String(), err: err, took: time.Since(start)}
	t.Logf("fedctl status %s (%s)\nstdout:\n%sstderr:\n%s", strings.Join(args, " "), r.took.Round(time.Millisecond), r.out, r.errOut)
	return r
}

// apply propagates the manifests in paths with fedctl's engine and
// propagate, as fedctl apply does, and requires every member to succeed.
func apply(t *testing.T, paths ...string) {
	t.Helper()
	applyWith(t, propagate.Options{}, paths...)
}

func applyWith(t *testing.T, opts propagate.Options, paths ...string) {
	t.Helper()
	e := testenv.Require(t, env)
	fed := testFederation()
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, paths...), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	require.NoError(t, out.Result.Err())
	access := members.Access{Kubeconfig: e.Kubeconfig}
	report := propagate.Run(context.Background(), propagate.Input{
		Result: out.Result, Clusters: fed.Names(), Options: opts,
		Clients: func(name string) (members.Client, error) {
			m, _ := fed.Member(name)
			cfg, err := access.RESTConfig(m)
			if err != nil {
				return nil, err
			}
			return members.NewClient(cfg)
		},
	})
	require.Empty(t, report.Failed(), "apply failed: %+v", report.Clusters)
}

func client(t *testing.T, cluster string) dynamic.Interface {
	t.Helper()
	cfg, err := testenv.Require(t, env).RESTConfig(cluster)
	require.NoError(t, err)
	c, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return c
}

func patch(t *testing.T, cluster string, gvr schema.GroupVersionResource, ns, name, body string) {
	t.Helper()
	_, err := client(t, cluster).Resource(gvr).Namespace(ns).Patch(context.Background(), name, types.MergePatchType, []byte(body), metav1.PatchOptions{})
	require.NoError(t, err)
}

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func namespaceDoc(ns string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata:
  name: %s
  namespace: %s
spec:
  placement:
    clusterSelector: {}
`, ns, ns)
}

func configMapDoc(ns, name, value, extraSpec string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: %s
  namespace: %s
spec:
  template:
    data:
      k: %q
%s`, name, ns, value, extraSpec)
}

const allClusters = `  placement:
    clusterSelector: {}
`

// deploymentDoc is a FederatedDeployment whose pods request cpu cores of
// the fake node's 32, so that a test can leave some pods unschedulable.
func deploymentDoc(ns, name string, replicas int, cpu, extraTemplateSpec, extraSpec string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata:
  name: %s
  namespace: %s
spec:
  template:
    spec:
      replicas: %d
%s      selector:
        matchLabels: {app: %s}
      template:
        metadata:
          labels: {app: %s}
        spec:
          containers:
          - name: app
            image: registry.example/app:1
            resources:
              requests: {cpu: %q}
%s`, name, ns, replicas, extraTemplateSpec, name, name, cpu, extraSpec)
}

var (
	portRE = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	// tempRE matches the test's temporary directory in file:line prefixes.
	tempRE = regexp.MustCompile(`/[^\s:'"]+/([\w.-]+\.yaml)`)
	// generationRE matches a drift message's generations, which depend on
	// how many writes apply needed (fewer once it has seen the type's
	// generations, that is when other tests left objects of the type).
	generationRE = regexp.MustCompile(`\(generation (\d+), fedctl applied generation (\d+)\)`)
)

// normalize makes output comparable across runs: API server ports,
// temporary directories and generations vary. A drift message must still
// name a live generation above the applied one.
func normalize(t *testing.T, s string) string {
	t.Helper()
	for _, m := range generationRE.FindAllStringSubmatch(s, -1) {
		live, _ := strconv.Atoi(m[1])
		applied, _ := strconv.Atoi(m[2])
		assert.Greater(t, live, applied, "drift means a newer live generation: %s", m[0])
	}
	s = generationRE.ReplaceAllString(s, "(generation N, fedctl applied generation M)")
	// When fedctl last changed each object is the run's own time; that it
	// is a well-formed time is checked here, its value by
	// TestStatusConditionTimes.
	for _, m := range timeRE.FindAllStringSubmatch(s, -1) {
		_, err := time.Parse(time.RFC3339, m[2])
		assert.NoError(t, err, "%s", m[0])
	}
	s = timeRE.ReplaceAllString(s, `${1}TIME"`)
	return tempRE.ReplaceAllString(portRE.ReplaceAllString(s, "127.0.0.1:PORT"), "$1")
}

// timeRE finds the times status reports (YAML and JSON).
var timeRE = regexp.MustCompile(`("?last(?:Update|Transition)Time"?: ")([^"]+)"`)

func golden(t *testing.T, got, name string) {
	t.Helper()
	testutil.AssertGolden(t, []byte(normalize(t, got)), filepath.Join("testdata", name+".golden"))
}

// waitFor reads the status of paths until check accepts it, or fails the
// test after a minute.
func waitFor(t *testing.T, check func(*status.Report) bool, paths ...string) *status.Report {
	t.Helper()
	fed := testFederation()
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, paths...), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	access := members.Access{Kubeconfig: testenv.Require(t, env).Kubeconfig}
	in := status.Input{Result: out.Result, Clusters: fed.Names(), Clients: func(name string) (members.Client, error) {
		m, _ := fed.Member(name)
		return members.NewMemberClient(access, m)
	}}
	deadline := time.Now().Add(time.Minute)
	for {
		r := status.Read(context.Background(), in)
		if check(r) {
			return r
		}
		if time.Now().After(deadline) {
			data, _ := json.MarshalIndent(r, "", "  ")
			t.Fatalf("status not reached within a minute; last:\n%s", data)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// cluster returns the status of federated object ref ("FederatedDeployment
// ns/name") in cluster.
func cluster(r *status.Report, ref, name string) status.ClusterStatus {
	for _, o := range r.Items {
		if o.Ref() != ref {
			continue
		}
		for _, c := range o.Status.Clusters {
			if c.Name == name {
				return c
			}
		}
	}
	return status.ClusterStatus{}
}

// TestStatusReadyAndWait: objects applied everywhere become Current; wait
// sees it, the table, -o yaml and the TYPE NAME form say so.
func TestStatusReadyAndWait(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "ready"
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "settings", "v1", allClusters)+
		deploymentDoc(ns, "web", 2, "100m", "", allClusters))
	apply(t, file)

	r := runStatus(t, "-f", file, "--wait", "--timeout", "90s")
	require.NoError(t, r.err)
	assert.Contains(t, r.errOut, "every member object is Current")

	r = runStatus(t, "-f", file)
	require.NoError(t, r.err)
	golden(t, r.out, "ready")
	assert.Contains(t, r.errOut, "3 federated objects, 9 member objects: 9 Current; propagation: 9 OK")

	r = runStatus(t, "-f", file, "-o", "yaml")
	require.NoError(t, r.err)
	golden(t, r.out, "ready-yaml")

	// Reads are cheap: discovery, then one label-selected LIST per type.
	requests = &requestLog{}
	r = runStatus(t, "-f", file)
	log := requests
	requests = nil
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		got := log.requests(c)
		var lists []string
		for _, req := range got {
			if strings.Contains(req, "labelSelector=") {
				lists = append(lists, req)
			}
		}
		assert.ElementsMatch(t, []string{
			"GET https://HOST/api/v1/configmaps?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dfedctl&limit=500&timeout=30s",
			"GET https://HOST/apis/apps/v1/deployments?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dfedctl&limit=500&timeout=30s",
			"GET https://HOST/api/v1/namespaces?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dfedctl&limit=500&timeout=30s",
		}, lists, "one LIST per type in %s", c)
		assert.Len(t, got, 5, "discovery (2 requests) and 3 LISTs in %s: %v", c, got)
		t.Logf("status of 3 federated objects, %s: %d requests: %v", c, len(got), got)
	}

	var report status.Report
	r = runStatus(t, "-f", file, "-o", "json", "--cluster", "cluster2")
	require.NoError(t, r.err)
	require.NoError(t, json.Unmarshal([]byte(r.out), &report))
	require.Len(t, report.Items, 3)
	for _, o := range report.Items {
		require.Len(t, o.Status.Conditions, 1, o.Ref())
		cond := o.Status.Conditions[0]
		assert.Equal(t, status.Condition{Type: "Propagation", Status: "True", LastUpdateTime: cond.LastUpdateTime, LastTransitionTime: cond.LastUpdateTime}, cond, o.Ref())
		assert.NotEmpty(t, cond.LastUpdateTime, "when fedctl last changed it, %s", o.Ref())
		require.Len(t, o.Status.Clusters, 1, "--cluster cluster2 reads cluster2 only")
		assert.Equal(t, "cluster2", o.Status.Clusters[0].Name)
		assert.Empty(t, o.Status.Clusters[0].Status, "OK is left out, as KubeFed does")
	}

	for _, typ := range []string{"federateddeployments", "fdeploy", "FederatedDeployment", "federateddeployment.types.kubefed.io"} {
		r = runStatus(t, typ, "web", "-n", ns)
		require.NoError(t, r.err, typ)
		golden(t, r.out, "lookup")
	}
	r = runStatus(t, "fdeploy", "nothing", "-n", ns)
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "no member cluster holds an object of FederatedDeployment/ready/nothing")
	r = runStatus(t, "fwidgets", "web")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), `no federated type named "fwidgets"`)
}

// TestStatusInProgressFailedAndTimeout: a Deployment stuck half scaled is
// InProgress and --wait times out listing it; one whose progress deadline
// passed is Failed and --wait gives up at once.
func TestStatusInProgressFailedAndTimeout(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "rollout"
	// Each pod asks for 20 of the fake node's 32 cores: in cluster1, where
	// an override asks for 2 replicas, only one pod can ever run.
	nsFile := writeFile(t, dir, "ns.yaml", namespaceDoc(ns))
	scaling := writeFile(t, dir, "scaling.yaml", deploymentDoc(ns, "scaling", 1, "20", "", allClusters+`  overrides:
  - clusterName: cluster1
    clusterOverrides:
    - path: /spec/replicas
      value: 2
`))
	// No pod fits, and the deployment controller gives up after a second:
	// ProgressDeadlineExceeded, which kstatus calls Failed.
	doomed := writeFile(t, dir, "doomed.yaml", deploymentDoc(ns, "doomed", 1, "100", "      progressDeadlineSeconds: 1\n", `  placement:
    clusters: [{name: cluster2}]
`))
	apply(t, nsFile, scaling, doomed)

	waitFor(t, func(r *status.Report) bool {
		s1 := cluster(r, "FederatedDeployment rollout/scaling", "cluster1")
		return s1.ReadyReplicas != nil && *s1.ReadyReplicas == 1 &&
			cluster(r, "FederatedDeployment rollout/scaling", "cluster2").Readiness == status.Current &&
			cluster(r, "FederatedDeployment rollout/scaling", "cluster3").Readiness == status.Current &&
			cluster(r, "FederatedDeployment rollout/doomed", "cluster2").Readiness == status.Failed
	}, dir)

	r := runStatus(t, "-f", dir, "-o", "wide")
	require.NoError(t, r.err, "status reports states; it fails only when it cannot read")
	golden(t, r.out, "rollout-wide")
	assert.Contains(t, r.errOut, "3 federated objects, 7 member objects: 5 Current, 1 InProgress, 1 Failed; propagation: 7 OK")

	r = runStatus(t, "-f", nsFile, "-f", scaling, "--wait", "--timeout", "3s")
	var nr *status.NotReadyError
	require.ErrorAs(t, r.err, &nr)
	assert.True(t, nr.TimedOut)
	var timeout *cmdutil.TimeoutError
	assert.ErrorAs(t, r.err, &timeout, "a wait that times out exits 4")
	assert.Equal(t, "timed out waiting: 1 member object not Current\n  cluster cluster1:\n    Deployment rollout/scaling: InProgress: Available: 1/2", r.err.Error())
	assert.Contains(t, r.errOut, "cluster cluster1: Deployment rollout/scaling: InProgress: Available: 1/2\n", "one line per change off a terminal")
	assert.NotContains(t, r.errOut, "cluster cluster2: Deployment rollout/scaling", "Current objects are not worth a line")
	assert.Contains(t, r.out, "InProgress", "the last status is printed")

	r = runStatus(t, "-f", dir, "--wait", "--timeout", "60s")
	require.ErrorAs(t, r.err, &nr)
	assert.False(t, nr.TimedOut)
	assert.False(t, errors.As(r.err, &timeout), "a Failed object is not a timeout: exit 1")
	assert.Contains(t, r.err.Error(), "1 member object cannot become Current (1 more not Current yet)\n  cluster cluster1:\n    Deployment rollout/scaling: InProgress: Available: 1/2\n  cluster cluster2:\n    Deployment rollout/doomed: Failed: Progress deadline exceeded")
	assert.Less(t, r.took, 30*time.Second, "a Failed object ends the wait at once")
}

// TestStatusDrift: a manual edit in one member, and a manifest changed
// since the last apply, are Drifted.
func TestStatusDrift(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "drift"
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "settings", "v1", allClusters)+
		deploymentDoc(ns, "web", 1, "100m", "", allClusters))
	apply(t, file)
	r := runStatus(t, "-f", file, "--wait", "--timeout", "90s")
	require.NoError(t, r.err)

	// Someone edits the Deployment's spec in cluster2 and the ConfigMap's
	// data in cluster3.
	// (revisionHistoryLimit moves the generation without touching
	// availability: minReadySeconds made the Deployment go back to
	// InProgress for a moment after it was Current, and the test flaky.)
	patch(t, "cluster2", deployGVR, ns, "web", `{"spec":{"revisionHistoryLimit":5}}`)
	patch(t, "cluster3", cmGVR, ns, "settings", `{"data":{"k":"edited"}}`)
	waitFor(t, func(r *status.Report) bool {
		return cluster(r, "FederatedDeployment drift/web", "cluster2").Readiness == status.Current
	}, file)
	r = runStatus(t, "-f", file, "-o", "wide")
	require.NoError(t, r.err, "without --exit-code drift is reported, not an error")
	golden(t, r.out, "drift-wide")

	// --exit-code: drift fails a CI gate (exit 1), after the report.
	r = runStatus(t, "-f", file, "--exit-code")
	require.EqualError(t, r.err, `2 member object(s) out of sync (2 Drifted); "fedctl apply" would bring them in line`)
	var partial *cmdutil.PartialError
	assert.False(t, errors.As(r.err, &partial), "every member was read: 1, not 3")
	assert.Regexp(t, `Deployment\s+drift\s+web\s+cluster2\s+Drifted`, r.out, "the report is printed all the same")
	r = runStatus(t, "fdeploy", "web", "-n", ns, "--exit-code")
	require.EqualError(t, r.err, `1 member object(s) out of sync (1 Drifted); "fedctl apply" would bring them in line`)

	// Without the manifests only the spec change shows.
	r = runStatus(t, "fdeploy", "web", "-n", ns)
	require.NoError(t, r.err)
	assert.Regexp(t, `Deployment\s+drift\s+web\s+cluster2\s+Drifted\s`, r.out)
	assert.Regexp(t, `Deployment\s+drift\s+web\s+cluster1\s+OK\s`, r.out)
	r = runStatus(t, "federatedconfigmaps", "settings", "-n", ns)
	require.NoError(t, r.err)
	assert.Regexp(t, `ConfigMap\s+drift\s+settings\s+cluster3\s+OK\s`, r.out, "a ConfigMap has no generation: its edits cannot be told without the manifests")

	// The manifests change: every member is behind.
	writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "settings", "v2", allClusters)+
		deploymentDoc(ns, "web", 1, "100m", "", allClusters))
	r = runStatus(t, "-f", file, "-o", "json")
	require.NoError(t, r.err)
	var report status.Report
	require.NoError(t, json.Unmarshal([]byte(r.out), &report))
	for _, c := range clusterNames {
		s := cluster(&report, "FederatedConfigMap drift/settings", c)
		assert.Equal(t, status.Drifted, s.Status, c)
		if c != "cluster3" {
			assert.Equal(t, "the manifests changed since fedctl last applied it", s.Message, c)
		}
	}
	assert.Equal(t, "CheckClusters", report.Items[0].Status.Conditions[0].Reason)

	// apply brings them back; the edit took the ConfigMap's field over, so
	// it takes --force-conflicts.
	applyWith(t, propagate.Options{Force: true}, file)
	r = runStatus(t, "-f", file, "--wait", "--timeout", "90s", "--exit-code")
	require.NoError(t, r.err, "in sync again: --exit-code gives 0")
	assert.Contains(t, r.errOut, "propagation: 9 OK")
}

// TestStatusPropagationStates: AlreadyExists, NotApplied,
// ApplyOverridesFailed, NamespaceNotFederated, ComputePlacementFailed,
// WaitingForRemoval and ManagedLabelFalse, each from what the members hold.
func TestStatusPropagationStates(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "states"
	applied := writeFile(t, dir, "applied.yaml", namespaceDoc(ns)+
		configMapDoc(ns, "moved", "v1", allClusters)+configMapDoc(ns, "handsoff", "v1", allClusters))
	apply(t, applied)
	// A ConfigMap fedctl did not create, in cluster1.
	foreign := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "foreign", "namespace": ns}, "data": map[string]any{"k": "mine"}}}
	_, err := client(t, "cluster1").Resource(cmGVR).Namespace(ns).Create(context.Background(), foreign, metav1.CreateOptions{})
	require.NoError(t, err)
	patch(t, "cluster3", cmGVR, ns, "handsoff", `{"metadata":{"labels":{"kubefed.io/managed":"false"}}}`)

	input := writeFile(t, dir, "input.yaml", namespaceDoc(ns)+
		configMapDoc(ns, "moved", "v1", "  placement:\n    clusters: [{name: cluster1}]\n")+
		configMapDoc(ns, "handsoff", "v1", allClusters)+
		configMapDoc(ns, "foreign", "v1", allClusters)+
		configMapDoc(ns, "patched", "v1", allClusters+`  overrides:
  - clusterName: cluster2
    clusterOverrides:
    - op: remove
      path: /data/missing
`)+
		configMapDoc("elsewhere", "homeless", "v1", allClusters)+
		configMapDoc(ns, "badselector", "v1", `  placement:
    clusterSelector:
      matchExpressions: [{key: region, operator: Near, values: [eu]}]
`))
	// Relative paths, so that messages (and YAML's line folding) do not
	// depend on the temporary directory's name.
	goldenDir, err := filepath.Abs("testdata")
	require.NoError(t, err)
	t.Chdir(dir)
	input = filepath.Base(input)
	r := runStatus(t, "-f", input, "-o", "wide")
	require.NoError(t, r.err)
	testutil.AssertGolden(t, []byte(r.out), filepath.Join(goldenDir, "states-wide.golden"))
	assert.Contains(t, r.errOut, "not placed: 1 ComputePlacementFailed, 1 NamespaceNotFederated")

	r = runStatus(t, "-f", input, "-o", "yaml")
	require.NoError(t, r.err)
	testutil.AssertGolden(t, []byte(normalize(t, r.out)), filepath.Join(goldenDir, "states-yaml.golden"))

	r = runStatus(t, "-f", input, "--wait", "--timeout", "30s")
	var nr *status.NotReadyError
	require.ErrorAs(t, r.err, &nr)
	assert.False(t, nr.TimedOut, "AlreadyExists and ApplyOverridesFailed cannot change by waiting")
	assert.Contains(t, r.err.Error(), "ConfigMap states/foreign: Current (AlreadyExists)")
}

// TestStatusClusterDown: a member that does not answer is ClusterNotReady
// and does not stop the others; the exit code is 3, and --wait waits for it.
func TestStatusClusterDown(t *testing.T) {
	e := testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "down"
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+deploymentDoc(ns, "web", 1, "100m", "", allClusters))
	apply(t, file)
	require.NoError(t, runStatus(t, "-f", file, "--wait", "--timeout", "90s").err)

	require.NoError(t, e.StopCluster("cluster3"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		require.NoError(t, e.StartCluster(ctx, "cluster3"))
	})
	r := runStatus(t, "-f", file, "--timeout", "5s")
	var partial *cmdutil.PartialError
	require.ErrorAs(t, r.err, &partial)
	assert.Equal(t, []string{"cluster3"}, partial.Failed)
	golden(t, r.out, "down")
	assert.Contains(t, r.errOut, "cluster cluster3 could not be read (ClusterNotReady)")

	r = runStatus(t, "fdeploy", "web", "-n", ns, "--timeout", "5s")
	require.ErrorAs(t, r.err, &partial)

	// found in none of the members read: not "no member holds it", since
	// cluster3 may; the report names cluster3, and the exit is 3
	r = runStatus(t, "fdeploy", "nothing", "-n", ns, "--timeout", "5s")
	require.Error(t, r.err)
	assert.Equal(t, cmdutil.ExitPartial, cmdutil.ExitCodeOf(r.err), r.err.Error())
	assert.Contains(t, r.err.Error(), "none of the 2 member cluster(s) read holds an object of FederatedDeployment/down/nothing; 1 could not be read and may: cluster3")
	assert.Regexp(t, `cluster3\s+ClusterNotReady`, r.out)

	// --exit-code keeps 3 for a member that could not be read
	r = runStatus(t, "-f", file, "--timeout", "5s", "--exit-code")
	require.ErrorAs(t, r.err, &partial)
	assert.Equal(t, []string{"cluster3"}, partial.Failed)
	assert.Regexp(t, `Deployment\s+down\s+web\s+cluster3\s+ClusterNotReady\s+Unknown`, r.out)

	// the wait times out and a member could not be read: both are told,
	// and 3 wins over the timeout's 4, as for apply --wait
	r = runStatus(t, "-f", file, "--wait", "--timeout", "3s")
	var nr *status.NotReadyError
	require.ErrorAs(t, r.err, &nr)
	assert.True(t, nr.TimedOut)
	assert.Contains(t, r.err.Error(), "cluster cluster3:\n    Deployment down/web: Unknown (ClusterNotReady)")
	assert.Contains(t, r.err.Error(), "1 member cluster(s) could not be read: cluster3")
	assert.Equal(t, cmdutil.ExitPartial, cmdutil.ExitCodeOf(r.err))
	assert.False(t, errors.Is(r.err, context.DeadlineExceeded))
}

// TestStatusWaitBoundedWhenAMemberHangs: a member that completes TLS and
// then never answers holds a wait for --timeout, not for the request
// timeout of client-go or of a read (30 s): the reliability issue saw
// "status --wait --timeout 8s" take 30 s.
func TestStatusWaitBoundedWhenAMemberHangs(t *testing.T) {
	e := testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "hangwait"
	nsFile := writeFile(t, dir, "ns.yaml", namespaceDoc(ns))
	cm := writeFile(t, dir, "cm.yaml", configMapDoc(ns, "cfg", "v1", ""))
	apply(t, nsFile, cm)

	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	kubeconfig := e.KubeconfigVia(t, "cluster2-proxied", "cluster2", p.Server)
	fed := federationVia(t, "cluster2", "cluster2-proxied")
	p.Set(testenv.Faults{Hang: true})

	r := runStatusVia(t, fed, kubeconfig, "-f", dir, "--wait", "--timeout", "4s")
	var nr *status.NotReadyError
	require.ErrorAs(t, r.err, &nr)
	assert.True(t, nr.TimedOut)
	assert.Less(t, r.took, 10*time.Second, "bounded by --timeout 4s")
	_, injected := p.Counts()
	assert.Positive(t, injected, "cluster2 was asked and never answered")

	// With an RSP (a live read of the replicas before the wait) and a DNS
	// record (a read of the members after it), --timeout still bounds the
	// whole run: the three share one deadline. Before, each had its own,
	// and the run took about three times --timeout.
	writeFile(t, dir, "web.yaml", deploymentDoc(ns, "web", 1, "10m", "", allClusters)+`---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: `+ns+`}
spec: {targetKind: FederatedDeployment, totalReplicas: 3}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata: {name: web, namespace: `+ns+`}
spec:
  template:
    spec: {selector: {app: web}, ports: [{port: 80}]}
`+allClusters+`---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: Domain
metadata: {name: example}
domain: example.com
---
apiVersion: multiclusterdns.kubefed.io/v1alpha1
kind: ServiceDNSRecord
metadata: {name: web, namespace: `+ns+`}
spec: {domainRef: example}
`)
	r = runStatusVia(t, fed, kubeconfig, "-f", dir, "--wait", "--timeout", "4s")
	require.ErrorAs(t, r.err, &nr)
	assert.True(t, nr.TimedOut)
	assert.Less(t, r.took, 7*time.Second, "one deadline of 4s for the live read, the wait and the DNS read")
	assert.Contains(t, r.errOut, "DNS records: not read, --timeout was reached")
}

// TestStatusWaitBoundedWhenCredentialsHang: cluster2's credentials come
// from an exec plugin that never answers. client-go runs it with no
// context, so only giving up on the member bounds the wait; before, the
// run lasted as long as the plugin.
func TestStatusWaitBoundedWhenCredentialsHang(t *testing.T) {
	e := testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "hangexec"
	nsFile := writeFile(t, dir, "ns.yaml", namespaceDoc(ns))
	cm := writeFile(t, dir, "cm.yaml", configMapDoc(ns, "cfg", "v1", ""))
	apply(t, nsFile, cm)

	kubeconfig := e.KubeconfigHangingExec(t, "cluster2-exec", "cluster2", 40*time.Second)
	r := runStatusVia(t, federationVia(t, "cluster2", "cluster2-exec"), kubeconfig, "-f", dir, "--wait", "--timeout", "3s")
	var nr *status.NotReadyError
	require.ErrorAs(t, r.err, &nr)
	assert.True(t, nr.TimedOut)
	assert.Less(t, r.took, 20*time.Second, "bounded by --timeout 3s, not by the plugin's 40s")
	assert.Contains(t, r.errOut, "cluster2")
	assert.Contains(t, r.errOut, "exec credential plugin")
}

// TestStatusCordoned: in a cordoned member apply creates and removes
// nothing, so status says Cordoned there, --exit-code does not count it as
// something apply would fix, and --wait does not wait for it.
func TestStatusCordoned(t *testing.T) {
	e := testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "cordoned"
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "old", "v1", allClusters))
	apply(t, file)
	// cluster3 is cordoned; a new ConfigMap is placed everywhere, the old
	// one no longer in cluster3
	writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "old", "v1", "  placement:\n    clusters: [{name: cluster1}, {name: cluster2}]\n")+configMapDoc(ns, "fresh", "v1", allClusters))
	fed := testFederation()
	m, _ := fed.Member("cluster3")
	m.Cordoned = &members.Cordon{Reason: "maintenance"}
	require.NoError(t, fed.Put(m, true))
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: e.Kubeconfig}, nil },
	}
	run := func(args ...string) error {
		out.Reset()
		errOut.Reset()
		cmd := NewCmdStatus(f, nil)
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.ExecuteContext(context.Background())
		t.Logf("fedctl status %s\nstdout:\n%sstderr:\n%s", strings.Join(args, " "), out, errOut)
		return err
	}
	err := run("-f", file, "--exit-code", "-o", "wide")
	require.Error(t, err, "fresh is NotApplied in cluster1 and cluster2: apply would create it")
	assert.Contains(t, err.Error(), "2 member object(s) out of sync (2 NotApplied)", "nothing of cluster3's is counted")
	assert.Regexp(t, `ConfigMap\s+cordoned\s+fresh\s+cluster3\s+Cordoned\s+NotFound\s.*apply creates no object there`, out.String())
	assert.Regexp(t, `ConfigMap\s+cordoned\s+old\s+cluster3\s+Cordoned\s+Current\s.*keeps what runs there`, out.String())

	applyWith(t, propagate.Options{Cordoned: []string{"cluster3"}}, file) // fresh everywhere but cluster3, which keeps old
	err = run("-f", file, "--wait", "--timeout", "10s", "--exit-code")
	require.NoError(t, err, "nothing to wait for in the cordoned member, and nothing apply would change")
	assert.Regexp(t, `ConfigMap\s+cordoned\s+fresh\s+cluster3\s+Cordoned\s+NotFound`, out.String())
}

// TestStatusRetrievalFailed: a member that answers its LISTs but refuses
// the GET of an object fedctl's LIST did not find (403 here) has not shown
// what it holds: RetrievalFailed, and the exit is 3, so that a CI gate
// does not pass on it, with --exit-code or without.
func TestStatusRetrievalFailed(t *testing.T) {
	e := testenv.Require(t, env)
	const ns = "unread"
	dir := t.TempDir()
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "cfg", "v", allClusters))
	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	p.Set(testenv.Faults{Status: 403, Methods: []string{"GET"}, Paths: []string{"/api/v1/namespaces/" + ns + "/configmaps/cfg"}, ExactPaths: true})
	kubeconfig := e.KubeconfigVia(t, "cluster2-proxied", "cluster2", p.Server)
	fed := federationVia(t, "cluster2", "cluster2-proxied")

	for _, args := range [][]string{{"-f", file}, {"-f", file, "--exit-code"}} {
		r := runStatusVia(t, fed, kubeconfig, args...)
		var partial *cmdutil.PartialError
		require.ErrorAs(t, r.err, &partial, "%v", args)
		assert.Equal(t, []string{"cluster2"}, partial.Failed)
		assert.Equal(t, "some objects could not be read in cluster2 (RetrievalFailed)", r.err.Error(), "cluster2 answered: no failed member")
		assert.Regexp(t, `ConfigMap\s+unread\s+cfg\s+cluster2\s+RetrievalFailed\s+Unknown`, r.out)
		assert.Regexp(t, `ConfigMap\s+unread\s+cfg\s+cluster1\s+NotApplied\s+NotFound`, r.out)
	}
	_, injected := p.Counts()
	assert.Positive(t, injected, "cluster2's GET was refused")
}
