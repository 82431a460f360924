package rollout

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestRolloutOverheadReport measures what a 3-wave rollout (one member per
// wave, no soak, no gate) costs over a plain apply --wait of the same
// objects to the same members: wall time and requests per member, each
// into its own fresh namespace, then the no-op re-run of each. It prints
// the table and asserts only that every run succeeded: timings are not
// tests.
//
//	FEDCTL_BENCH_REPORT=1 go test ./cmd/rollout -run TestRolloutOverheadReport -v
func TestRolloutOverheadReport(t *testing.T) {
	if os.Getenv("FEDCTL_BENCH_REPORT") == "" {
		t.Skip("set FEDCTL_BENCH_REPORT=1 to measure the rollout's overhead (make bench-rollout)")
	}
	const configMaps = 100
	corpus := func(ns string) string {
		var b strings.Builder
		b.WriteString(app(ns, "v1", ""))
		for i := range configMaps {
			fmt.Fprintf(&b, `---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg-%03d, namespace: %s}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`, i, ns)
		}
		return b.String()
	}
	fed := `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters: [{name: cluster1}, {name: cluster2}, {name: cluster3}]
types: []
rollout:
  waves:
  - {name: one, clusters: [cluster1]}
  - {name: two, clusters: [cluster2]}
  - {name: three}
`
	type row struct {
		name     string
		took     time.Duration
		requests [3]int
	}
	var rows []row
	measure := func(name string, w *workspace, args ...string) {
		start := time.Now()
		r := w.apply(t, args...)
		took := time.Since(start)
		require.NoError(t, r.err, r.errOut)
		rows = append(rows, row{name, took, [3]int{r.requests.requests("cluster1"), r.requests.requests("cluster2"), r.requests.requests("cluster3")}})
	}
	plain := newWorkspace(t, fed, corpus("overhead-plain"))
	measure("apply --wait (cold)", plain, "--wait")
	waves := newWorkspace(t, fed, corpus("overhead-rollout"))
	measure("apply --rollout, 3 waves (cold)", waves, "--rollout")
	measure("apply --wait (no-op)", plain, "--wait")
	measure("apply --rollout, 3 waves (no-op)", waves, "--rollout")

	var b strings.Builder
	fmt.Fprintf(&b, "\n%d objects per member (a Namespace, a Service, a Deployment of 2, %d ConfigMaps); 3 members\n", configMaps+4, configMaps+1)
	fmt.Fprintf(&b, "%-36s %9s  %s\n", "RUN", "TIME", "REQUESTS cluster1/cluster2/cluster3")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-36s %8.2fs  %d/%d/%d\n", r.name, r.took.Seconds(), r.requests[0], r.requests[1], r.requests[2])
	}
	fmt.Fprintf(&b, "rollout/plain time: cold %.2f×, no-op %.2f×\n", rows[1].took.Seconds()/rows[0].took.Seconds(), rows[3].took.Seconds()/rows[2].took.Seconds())
	t.Log(b.String())
}
