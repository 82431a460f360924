package diff

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestDiffDeadline: a member that completes TLS and then never answers
// (testenv.FaultProxy's Hang) costs --deadline, not the 30 s of the
// per-request --timeout and its retries; it is reported in one line,
// "deadline reached (--deadline 3s)", after the other member's
// differences, and the run exits 2, as any diff error (issue 11).
func TestDiffDeadline(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns = "diffdeadline"
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere), configMap(ns, "other", "v1", everywhere)))
	runApply(t, fed, "-f", dir)
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v2", everywhere), configMap(ns, "other", "v1", everywhere)))

	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	kubeconfig := e.KubeconfigVia(t, "cluster2-proxied", "cluster2", p.Server)
	m, _ := fed.Member("cluster2")
	m.Context = "cluster2-proxied"
	require.NoError(t, fed.Put(m, true))
	p.Set(testenv.Faults{Hang: true})

	start := time.Now()
	r := runDiffVia(t, fed, kubeconfig, "-f", dir, "--deadline", "3s")
	took := time.Since(start)
	t.Logf("diff with cluster2 silent, --deadline 3s: %s", took.Round(time.Millisecond))
	assert.GreaterOrEqual(t, took, 3*time.Second, "cluster2 was waited for until the deadline")
	assert.Less(t, took, 8*time.Second, "bounded by --deadline 3s, not by the 30 s request timeout")
	_, injected := p.Counts()
	assert.Positive(t, injected, "cluster2's requests went unanswered")

	assert.Equal(t, 2, r.code, "a member not compared is an error: %v", r.err)
	assert.EqualError(t, r.err, "cannot compare everything: 1 problem(s) in member cluster(s) cluster2")
	assert.Equal(t, 1, strings.Count(r.out, "-  k: v1\n+  k: v2\n"), "cluster1's difference is printed")
	assert.Contains(t, r.out, "/LIVE/cluster1_v1.ConfigMap."+ns+".cfg\t")
	assert.NotContains(t, r.out, "cluster2_", "nothing of cluster2 is shown")
	assert.Equal(t, "✗ cluster cluster2: deadline reached (--deadline 3s)\n", r.errOut, "one line for cluster2, nothing else")
}

// TestDiffDeadlineMidway: a member slower than --deadline allows is cut
// off while its objects are compared: what it could not compare, sent or
// not, is one line with the count, never a line per object; the
// differences it found before are printed with the other member's.
func TestDiffDeadlineMidway(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns, n = "diffmidway", 99
	docs := func(value string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(configMap(ns, fmt.Sprintf("cfg-%02d", i), value, everywhere))
		}
		return manifests(ns, b.String())
	}
	write(t, dir, docs("v1"))
	runApply(t, fed, "-f", dir)
	write(t, dir, docs("v2"))

	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	kubeconfig := e.KubeconfigVia(t, "cluster2-proxied", "cluster2", p.Server)
	m, _ := fed.Member("cluster2")
	m.Context = "cluster2-proxied"
	require.NoError(t, fed.Put(m, true))
	// Every dry run (a server-side apply: PATCH) to cluster2 takes 700 ms
	// and 32 are in flight at once: the Namespace, one ConfigMap alone
	// (see propagate's generationProbes), then three rounds of 32, of
	// which the deadline cuts the third.
	p.Set(testenv.Faults{Methods: []string{"PATCH"}, Latency: 700 * time.Millisecond})

	start := time.Now()
	r := runDiffVia(t, fed, kubeconfig, "-f", dir, "--deadline", "3s")
	took := time.Since(start)
	t.Logf("diff with cluster2 slow, --deadline 3s: %s", took.Round(time.Millisecond))
	assert.Less(t, took, 8*time.Second)
	assert.Equal(t, 2, r.code, "%v", r.err)
	shown := func(cluster string) int { // the "+++ MERGED/..." line of each file
		return len(regexp.MustCompile(`(?m)^\+\+\+ \S*/MERGED/`+cluster+`_v1\.ConfigMap\.`+ns+`\.`).FindAllString(r.out, -1))
	}
	assert.Equal(t, n, shown("cluster1"), "every difference in cluster1")
	compared := shown("cluster2")
	assert.Positive(t, compared, "what cluster2 compared before the deadline is shown")
	assert.Less(t, compared, n)
	assert.Regexp(t, regexp.MustCompile(`^✗ cluster cluster2: deadline reached \(--deadline 3s\): \d+ objects not compared\n$`), r.errOut, "one line for cluster2")
	assert.Contains(t, r.errOut, fmt.Sprintf(": %d objects not compared\n", n-compared), "the count is what is not shown")
}

// TestDiffDeadlineCredentialsHang: cluster2's credentials come from an
// exec plugin that never answers, which no context reaches; --deadline
// still ends the run, and cluster2 is named with the likely cause.
func TestDiffDeadlineCredentialsHang(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns = "diffexec"
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere)))
	runApply(t, fed, "-f", dir)
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v2", everywhere)))

	kubeconfig := e.KubeconfigHangingExec(t, "cluster2-exec", "cluster2", 40*time.Second)
	m, _ := fed.Member("cluster2")
	m.Context = "cluster2-exec"
	require.NoError(t, fed.Put(m, true))

	start := time.Now()
	r := runDiffVia(t, fed, kubeconfig, "-f", dir, "--deadline", "3s")
	took := time.Since(start)
	t.Logf("diff with cluster2's exec plugin hanging, --deadline 3s: %s\nstderr:\n%s", took.Round(time.Millisecond), r.errOut)
	assert.Less(t, took, 20*time.Second, "bounded by --deadline 3s, not by the plugin's 40s")
	assert.Equal(t, 2, r.code, "a member not compared is an error: %v", r.err)
	assert.Equal(t, 1, strings.Count(r.out, "-  k: v1\n+  k: v2\n"), "cluster1's difference is printed")
	assert.Contains(t, r.errOut, "✗ cluster cluster2: no answer in time")
	assert.Contains(t, r.errOut, "exec credential plugin")
}
