package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestApplyScaleByDefault: 5,000 ConfigMaps to three members succeed with
// apply's default flags (issue 11: 2,000 failed at the old whole-member
// 30 s --timeout), and the summary is one line per member.
func TestApplyScaleByDefault(t *testing.T) {
	if testing.Short() {
		t.Skip("5,000 objects to three API servers")
	}
	testenv.Require(t, env)
	const n = 5000
	const ns = "scale-5000"
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(namespaceDoc(ns))
	for i := range n {
		b.WriteString(configMapDoc(ns, fmt.Sprintf("cfg-%04d", i), "v", allClusters, ""))
	}
	write(t, dir, b.String())
	fed := federationOf()

	start := time.Now()
	r := runApplyQuiet(t, fed, "-f", dir)
	took := time.Since(start)
	t.Logf("cold apply of %d ConfigMaps (+1 Namespace) to %d members with default flags: %s", n, len(clusterNames), took.Round(10*time.Millisecond))
	require.NoError(t, r.err, lastLinesOf(r.errOut, 20))
	for i, c := range clusterNames {
		assert.Equal(t, n+1, r.report.Clusters[i].Count(propagate.Created), c)
		assert.True(t, strings.Contains(r.errOut, fmt.Sprintf("✓ cluster %s: %d created\n", c, n+1)), "summary of %s:\n%s", c, lastLinesOf(r.errOut, 3))
	}
	assert.Equal(t, len(clusterNames)*(n+1), strings.Count(r.errOut, " created\n")-len(clusterNames), "one streamed line per object")

	start = time.Now()
	r = runApplyQuiet(t, fed, "-f", dir)
	t.Logf("no-op re-apply: %s", time.Since(start).Round(10*time.Millisecond))
	require.NoError(t, r.err, lastLinesOf(r.errOut, 20))
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), c)
		assert.True(t, strings.Contains(r.errOut, fmt.Sprintf("✓ cluster %s: %d unchanged\n", c, n+1)), "summary of %s:\n%s", c, lastLinesOf(r.errOut, 3))
	}
	assert.False(t, strings.Contains(r.errOut, "configmap/cfg-0000 unchanged"), "unchanged objects are named only with -v 1")
}

// runApplyQuiet is runApply without logging the (long) stderr.
func runApplyQuiet(t *testing.T, fed *members.Federation, args ...string) applyRun {
	t.Helper()
	return runCmd(t, fed, 0, append([]string{"-o", "json"}, args...)...)
}

// runCmd runs "fedctl -v verbosity apply ARGS" against the test clusters
// and returns what it printed; stdout is decoded as the report when it is
// JSON.
func runCmd(t *testing.T, fed *members.Federation, verbosity int, args ...string) applyRun {
	t.Helper()
	e := testenv.Require(t, env)
	ios, _, out, errOut := iostreams.Test()
	counter := &requestCounter{counts: map[string]map[string]int{}, lists: map[string]int{}, discoveries: map[string]int{}}
	f := &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Settings: func() (cmdutil.Settings, error) { return cmdutil.Settings{Verbosity: verbosity}, nil },
		Access: func() (members.Access, error) {
			return members.Access{Kubeconfig: e.Kubeconfig, RequestLog: counter}, nil
		},
	}
	cmd := NewCmdApply(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	r := applyRun{out: out.String(), errOut: errOut.String(), err: err, requests: counter}
	if strings.HasPrefix(out.String(), "{") {
		require.NoError(t, json.Unmarshal(out.Bytes(), &r.report), out.String())
	}
	return r
}

// TestApplyNamesObjects: every object that changes is named on stderr,
// kubectl-style with the cluster first, as it happens; unchanged ones only
// from -v 1; -v 4 adds a line of timings per member; -o name prints
// "CLUSTER kind.group/NAME" on stdout.
func TestApplyNamesObjects(t *testing.T) {
	const ns = "named"
	dir := t.TempDir()
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+deploymentDoc(ns, "web", "nginx:1.27", 1, "", allClusters, ""))
	fed := federationOf()

	r := runCmd(t, fed, 0, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	for _, c := range clusterNames {
		assert.Contains(t, r.errOut, c+"  namespace/named created\n")
		assert.Contains(t, r.errOut, c+"  configmap/cfg created\n")
		assert.Contains(t, r.errOut, c+"  deployment.apps/web created\n")
	}
	assert.Empty(t, r.out)

	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v2", allClusters, "")+deploymentDoc(ns, "web", "nginx:1.27", 1, "", allClusters, ""))
	r = runCmd(t, fed, 0, "-f", dir, "-o", "name")
	require.NoError(t, r.err, r.errOut)
	assert.Contains(t, r.errOut, "cluster2  configmap/cfg configured\n")
	assert.NotContains(t, r.errOut, "deployment.apps/web unchanged")
	assert.Equal(t, `cluster1 namespace/named
cluster1 configmap/cfg
cluster1 deployment.apps/web
cluster2 namespace/named
cluster2 configmap/cfg
cluster2 deployment.apps/web
cluster3 namespace/named
cluster3 configmap/cfg
cluster3 deployment.apps/web
`, r.out)

	r = runCmd(t, fed, 4, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	assert.Contains(t, r.errOut, "cluster1  deployment.apps/web unchanged\n", "-v 1 and up name unchanged objects")
	assert.Regexp(t, `(?m)^cluster cluster1: \d+ requests, 0 writes, [0-9.]+s$`, r.errOut, "-v 4: timings per member")

	// de-placed from cluster3: deleted there, and said so
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v2", "    clusters:\n    - name: cluster1\n    - name: cluster2", "")+deploymentDoc(ns, "web", "nginx:1.27", 1, "", allClusters, ""))
	r = runCmd(t, fed, 0, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	assert.Contains(t, r.errOut, "cluster3  configmap/cfg deleted\n")
}

// TestApplyVerbosityLevels: the fedctl binary's -v levels mean what
// kubectl's do: 4 a line of timings per member, 6 every request, 8 the
// request bodies with the values of a Secret's data and stringData
// redacted (issue 11).
func TestApplyVerbosityLevels(t *testing.T) {
	e := testenv.Require(t, env)
	bin := fedctlBinary(t)
	const ns = "verbose"
	dir := t.TempDir()
	write(t, dir, namespaceDoc(ns)+fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedSecret
metadata:
  name: creds
  namespace: %s
spec:
  template:
    stringData: {password: hunter2-secret}
    data: {token: c2VjcmV0LXRva2Vu}
  placement:
    clusters: [{name: cluster1}]
`, ns))
	config := filepath.Join(t.TempDir(), "federation.yaml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: cluster1
  kubeconfig: %s
`, e.Kubeconfig)), 0o600))
	run := func(v string) string {
		cmd := exec.Command(bin, "--config", config, "apply", "-f", dir, "-v", v)
		var errOut strings.Builder
		cmd.Stderr = &errOut
		require.NoError(t, cmd.Run(), errOut.String())
		return errOut.String()
	}
	out := run("8")
	assert.Contains(t, out, "[cluster1] request body of PATCH ")
	assert.Contains(t, out, `"password":"REDACTED"`)
	assert.Contains(t, out, `"token":"REDACTED"`)
	assert.NotContains(t, out, "hunter2-secret")
	assert.NotContains(t, out, "c2VjcmV0LXRva2Vu")
	assert.Contains(t, out, "cluster1  secret/creds created\n")
	assert.Regexp(t, `(?m)^\[cluster1\] GET https://\S+ 200 OK in `, out, "-v 6 and up: every request")
	assert.Regexp(t, `(?m)^cluster cluster1: \d+ requests, \d+ writes, [0-9.]+s$`, out, "-v 4 and up: timings")

	out = run("4")
	assert.NotContains(t, out, "[cluster1] GET")
	assert.Contains(t, out, "cluster1  secret/creds unchanged\n")
	assert.Regexp(t, `(?m)^cluster cluster1: \d+ requests, 0 writes, [0-9.]+s$`, out)

	out = run("0")
	assert.Equal(t, "✓ cluster cluster1: 2 unchanged\n", out)
}
