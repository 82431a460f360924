package apply

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// benchDeployments is the propagation issue's corpus size.
const benchDeployments = 300

// TestApplyBenchReport measures what the propagation issue's performance
// requirement asks for, in one run on the three test clusters: a cold apply
// and a no-op re-apply of benchDeployments FederatedDeployments by
// bin/fedctl, against the physical floor (floorApply: a raw server-side
// apply of the rendered objects, 32 in flight per member) and kubectl
// apply --server-side of the same rendered objects, one context after
// another and all contexts at once, with the
// requests each sends per member. Every round uses fresh namespaces, so
// each cold apply really creates everything. It prints the table and
// asserts only that every command succeeded: timings are not tests.
//
//	FEDCTL_BENCH_REPORT=1 FEDCTL_BENCH_BIN=bin/fedctl [FEDCTL_BENCH_ROUNDS=1] go test ./cmd/apply -run TestApplyBenchReport -v
func TestApplyBenchReport(t *testing.T) {
	if os.Getenv("FEDCTL_BENCH_REPORT") == "" {
		t.Skip("set FEDCTL_BENCH_REPORT=1 to run the apply benchmark and print the report (make bench)")
	}
	fedctl := os.Getenv("FEDCTL_BENCH_BIN")
	if fedctl == "" {
		t.Skip("set FEDCTL_BENCH_BIN to the fedctl binary to measure (make bench builds bin/fedctl)")
	}
	rounds := 1
	if s := os.Getenv("FEDCTL_BENCH_ROUNDS"); s != "" {
		var err error
		if rounds, err = strconv.Atoi(s); err != nil || rounds < 1 {
			t.Fatalf("FEDCTL_BENCH_ROUNDS=%q: want a positive number", s)
		}
	}
	e := testenv.Require(t, env)
	kubectl, err := testenv.EnsureKubectl(t.Context(), os.Stderr)
	require.NoError(t, err)

	dir := t.TempDir()
	fedFile := filepath.Join(dir, "federation.yaml")
	require.NoError(t, (&members.File{Path: fedFile}).Save(federationOf()))
	base := []string{"--kubeconfig", e.Kubeconfig, "--config", fedFile}

	type measure struct {
		wall     time.Duration
		requests map[string]int // member -> requests
		writes   map[string]int
	}
	results := map[string][]measure{}
	record := func(name string, m measure) {
		results[name] = append(results[name], m)
		t.Logf("%-24s %7.2fs requests %v writes %v", name, m.wall.Seconds(), m.requests, m.writes)
	}

	for r := range rounds {
		// fedctl: the federated manifests, straight.
		ns := fmt.Sprintf("bench-fedctl-%d", r)
		manifests := filepath.Join(dir, ns)
		require.NoError(t, os.MkdirAll(manifests, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(manifests, "corpus.yaml"), benchCorpus(ns), 0o600))
		for _, phase := range []string{"cold", "no-op"} {
			start := time.Now()
			stderr := runCommand(t, fedctl, append(base, "apply", "-f", manifests, "--v=6")...)
			record("fedctl apply "+phase, measure{time.Since(start), countFedctlRequests(stderr, false), countFedctlRequests(stderr, true)})
		}

		// fedctl as users run it, without the request log (-v 6) the
		// counting above needs: how much of the cold time is the log's
		{
			ns := fmt.Sprintf("bench-fedctl-quiet-%d", r)
			manifests := filepath.Join(dir, ns)
			require.NoError(t, os.MkdirAll(manifests, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(manifests, "corpus.yaml"), benchCorpus(ns), 0o600))
			start := time.Now()
			runCommand(t, fedctl, append(base, "apply", "-f", manifests)...)
			record("fedctl apply cold, no -v", measure{time.Since(start), map[string]int{}, map[string]int{}})
		}

		// the physical floor: the objects fedctl renders for each member,
		// sent once each by a raw server-side-apply client
		{
			ns := fmt.Sprintf("bench-floor-%d", r)
			manifests := filepath.Join(dir, ns)
			require.NoError(t, os.MkdirAll(manifests, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(manifests, "corpus.yaml"), benchCorpus(ns), 0o600))
			rendered := map[string][]byte{}
			for _, c := range clusterNames {
				rendered[c] = runCommandOut(t, fedctl, append(base, "render", "-f", manifests, "--cluster", c, "-o", "yaml")...)
			}
			wall, requests := floorApply(t, e, rendered)
			record("raw SSA floor cold", measure{wall, requests, requests})
		}

		// kubectl: the objects fedctl renders for each member, in fresh
		// namespaces of the same shape.
		for _, mode := range []string{"serial", "parallel"} {
			ns := fmt.Sprintf("bench-kubectl-%s-%d", mode, r)
			manifests := filepath.Join(dir, ns)
			require.NoError(t, os.MkdirAll(manifests, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(manifests, "corpus.yaml"), benchCorpus(ns), 0o600))
			rendered := map[string]string{}
			for _, c := range clusterNames {
				out := runCommandOut(t, fedctl, append(base, "render", "-f", manifests, "--cluster", c, "-o", "yaml")...)
				rendered[c] = filepath.Join(dir, ns+"-"+c+".rendered.yaml")
				require.NoError(t, os.WriteFile(rendered[c], out, 0o600))
			}
			for _, phase := range []string{"cold", "no-op"} {
				stderrs := make([]string, len(clusterNames))
				one := func(i int) {
					c := clusterNames[i]
					stderrs[i] = runCommand(t, kubectl, "--kubeconfig", e.Kubeconfig, "--context", c, "apply", "--server-side",
						"--field-manager", "kubectl-bench", "-f", rendered[c], "-v=6")
				}
				start := time.Now()
				if mode == "serial" {
					for i := range clusterNames {
						one(i)
					}
				} else {
					var wg sync.WaitGroup
					for i := range clusterNames {
						wg.Go(func() { one(i) })
					}
					wg.Wait()
				}
				wall := time.Since(start)
				m := measure{wall, map[string]int{}, map[string]int{}}
				for i, c := range clusterNames {
					m.requests[c], m.writes[c] = countKubectlRequests(stderrs[i])
				}
				record("kubectl "+mode+" "+phase, m)
			}
		}
	}

	best := func(name string) measure {
		return slices.MinFunc(results[name], func(a, b measure) int { return int(a.wall - b.wall) })
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d FederatedDeployments (+1 FederatedNamespace) to %d members, best of %d round(s):\n\n", benchDeployments, len(clusterNames), rounds)
	fmt.Fprintf(&b, "%-24s %9s  %-34s %s\n", "", "seconds", "requests per member", "writes per member")
	for _, name := range []string{"raw SSA floor cold", "fedctl apply cold", "fedctl apply cold, no -v", "kubectl serial cold", "kubectl parallel cold", "fedctl apply no-op", "kubectl serial no-op", "kubectl parallel no-op"} {
		m := best(name)
		fmt.Fprintf(&b, "%-24s %9.2f  %-34s %s\n", name, m.wall.Seconds(), perMember(m.requests), perMember(m.writes))
	}
	ratio := func(a, b string) float64 { return best(a).wall.Seconds() / best(b).wall.Seconds() }
	fmt.Fprintf(&b, "\ncold:  fedctl / raw SSA floor    = %.2fx (target <= 1.5; %.2fx without -v 6's request log)\n",
		ratio("fedctl apply cold", "raw SSA floor cold"), ratio("fedctl apply cold, no -v", "raw SSA floor cold"))
	fmt.Fprintf(&b, "cold:  fedctl / kubectl serial   = %.2fx (target <= 0.5)\n", ratio("fedctl apply cold", "kubectl serial cold"))
	fmt.Fprintf(&b, "cold:  fedctl / kubectl parallel = %.2fx (target <= 1.0)\n", ratio("fedctl apply cold", "kubectl parallel cold"))
	fmt.Fprintf(&b, "no-op: fedctl / kubectl parallel = %.2fx (target <= 0.2)\n", ratio("fedctl apply no-op", "kubectl parallel no-op"))
	t.Log(b.String())
}

func perMember(m map[string]int) string {
	var parts []string
	for _, c := range clusterNames {
		parts = append(parts, fmt.Sprintf("%s=%d", c, m[c]))
	}
	return strings.Join(parts, " ")
}

// benchCorpus is a FederatedNamespace and benchDeployments
// FederatedDeployments in ns, every one placed in every member, every
// third with an override.
func benchCorpus(ns string) []byte {
	var b bytes.Buffer
	b.WriteString(namespaceDoc(ns))
	for i := range benchDeployments {
		doc := deploymentDoc(ns, fmt.Sprintf("web-%03d", i), "nginx:1.27", 1+i%5, "", allClusters, "")
		if i%3 == 0 {
			doc += "  overrides:\n  - clusterName: cluster2\n    clusterOverrides:\n    - path: /spec/replicas\n      value: 7\n"
		}
		b.WriteString(doc)
	}
	return b.Bytes()
}

// runCommand runs name args, fails the test if it fails, and returns its
// standard error.
func runCommand(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), name, args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	require.NoError(t, cmd.Run(), "%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), lastLinesOf(stderr.String(), 20))
	return stderr.String()
}

func runCommandOut(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(context.Background(), name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), lastLinesOf(stderr.String(), 20))
	return out
}

func lastLinesOf(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// fedctl --v=6 logs "[cluster1] PATCH https://... 200 OK in 3ms" per request.
var fedctlRequestLine = regexp.MustCompile(`^\[([^\]]+)\] (GET|POST|PUT|PATCH|DELETE) `)

func countFedctlRequests(stderr string, writesOnly bool) map[string]int {
	out := map[string]int{}
	for _, line := range strings.Split(stderr, "\n") {
		m := fedctlRequestLine.FindStringSubmatch(line)
		if m == nil || (writesOnly && m[2] == "GET") {
			continue
		}
		out[m[1]]++
	}
	return out
}

// kubectl -v=6 logs each request as a klog line holding
// `"Response" verb="PATCH" url="https://..." status="200 OK"`, or in older
// versions "PATCH https://... 200 OK in 3 milliseconds".
var kubectlRequestLine = regexp.MustCompile(`verb="(GET|POST|PUT|PATCH|DELETE)"|\] (GET|POST|PUT|PATCH|DELETE) https?://`)

func countKubectlRequests(stderr string) (requests, writes int) {
	for _, line := range strings.Split(stderr, "\n") {
		m := kubectlRequestLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		requests++
		if verb := m[1] + m[2]; verb != "GET" {
			writes++
		}
	}
	return requests, writes
}
