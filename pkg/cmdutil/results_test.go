package cmdutil

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
)

func cm(name string, a propagate.Action, err string) propagate.ObjectResult {
	return propagate.ObjectResult{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: name, Action: a, Error: err}
}

// TestWriteSummaryCollapsesIdenticalFailures: a member that dies midway
// is one line for its remaining objects, a deadline one line per member;
// a few failures are still named one by one.
func TestWriteSummaryCollapsesIdenticalFailures(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	c1 := propagate.ClusterResult{Cluster: "cluster1"}
	c1.Objects = append(c1.Objects, cm("a", propagate.Created, ""))
	for i := range 32 {
		c1.Objects = append(c1.Objects, cm(fmt.Sprintf("r%02d", i), propagate.Failed, "the API server refused the connection"))
	}
	c2 := propagate.ClusterResult{Cluster: "cluster2"}
	for i := range 5 {
		c2.Objects = append(c2.Objects, cm(fmt.Sprintf("d%d", i), propagate.Failed, propagate.NotAttemptedDeadline))
	}
	c2.Objects = append(c2.Objects, cm("c1", propagate.Failed, "conflict one"), cm("c2", propagate.Failed, "conflict two"))
	c3 := propagate.ClusterResult{Cluster: "cluster3", Objects: []propagate.ObjectResult{cm("x", propagate.Failed, propagate.NotAttemptedDeadline)}}
	WriteSummary(errOut, ios.ErrColorScheme(), &propagate.Report{Clusters: []propagate.ClusterResult{c1, c2, c3}})
	assert.Equal(t, `✗ cluster cluster1: 1 created, 32 failed
    32 objects failed: the API server refused the connection (ConfigMap shop/r00, ConfigMap shop/r01 and 30 more)
✗ cluster cluster2: 7 failed
    5 objects not attempted: deadline reached
    failed ConfigMap shop/c1: conflict one
    failed ConfigMap shop/c2: conflict two
✗ cluster cluster3: 1 failed
    1 object not attempted: deadline reached
`, errOut.String())
}

// TestResultStream: changed objects are named as they come, unchanged
// ones from -v 1, failures never (the summary groups them); on a
// terminal a progress line is drawn and erased.
func TestResultStream(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	s := NewResultStream(ios, 0, "none", []string{"cluster1", "c2"}, []render.Target{{Cluster: "cluster1"}, {Cluster: "c2"}, {Cluster: "cluster1"}})
	var wg sync.WaitGroup
	wg.Go(func() {
		s.OnResult("cluster1", propagate.ObjectResult{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Action: propagate.Configured})
	})
	wg.Go(func() { s.OnResult("c2", cm("cfg", propagate.Unchanged, "")) })
	wg.Wait()
	s.OnResult("cluster1", cm("bad", propagate.Failed, "boom"))
	s.Close()
	assert.Equal(t, "cluster1  deployment.apps/web configured\n", errOut.String())

	ios, _, _, errOut = iostreams.Test()
	s = NewResultStream(ios, 1, "server", []string{"cluster1"}, []render.Target{{Cluster: "cluster1"}})
	s.OnResult("cluster1", cm("cfg", propagate.Unchanged, ""))
	assert.Equal(t, "cluster1  configmap/cfg unchanged (server dry run)\n", errOut.String())

	ios, _, _, errOut = iostreams.Test()
	ios.SetTTY(true)
	s = NewResultStream(ios, 0, "none", []string{"cluster1"}, []render.Target{{Cluster: "cluster1"}, {Cluster: "cluster1"}})
	s.OnResult("cluster1", cm("cfg", propagate.Created, ""))
	s.Close()
	assert.Equal(t, "cluster1  configmap/cfg created\ncluster1 1/2\r            \r", errOut.String())
	assert.False(t, strings.Contains(errOut.String(), "\x1b"), "no escape sequence")
}

func TestWriteNames(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	_ = ios
	r := &propagate.Report{Clusters: []propagate.ClusterResult{{Cluster: "cluster1", Objects: []propagate.ObjectResult{
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Action: propagate.Unchanged},
		cm("gone", propagate.Deleted, ""), cm("bad", propagate.Failed, "boom"),
	}}}}
	assert.NoError(t, WriteNames(out, r))
	assert.Equal(t, "cluster1 deployment.apps/web\ncluster1 configmap/gone\n", out.String())
}

// TestTotals: each member counts its own member objects; members outside
// clusters (--cluster) are not shown, and delete, without targets, starts
// every member at zero.
func TestTotals(t *testing.T) {
	targets := []render.Target{{Cluster: "c1"}, {Cluster: "c2"}, {Cluster: "c1"}, {Cluster: "c3"}}
	assert.Equal(t, map[string]int{"c1": 2, "c2": 1}, totals([]string{"c1", "c2"}, targets))
	assert.Equal(t, map[string]int{"c1": 0, "c2": 0}, totals([]string{"c1", "c2"}, nil))
}
