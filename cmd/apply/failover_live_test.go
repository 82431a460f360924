package apply

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	convertcmd "github.com/fedctl/fedctl/cmd/convert"
	explaincmd "github.com/fedctl/fedctl/cmd/explain"
	rendercmd "github.com/fedctl/fedctl/cmd/render"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestApplyFailover: a member that does not answer loses its share of a
// replica plan to those that do, as KubeFed plans over ready clusters: 6
// replicas go 3/3 to cluster1 and cluster3 while cluster2 answers 503, the
// warning says so at the preference, and cluster2 is reported failed.
// --no-failover keeps its share (2/2 elsewhere). Once it answers again the
// plan is 2/2/2.
func TestApplyFailover(t *testing.T) {
	d := newFaultDrill(t)
	dir := t.TempDir()
	const ns = "failover"
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx", 6, "", allClusters, "")+rspDoc(ns, "web", 6))
	replicas := func(c string) any {
		return mustGet(t, c, deployGVR, ns, "web").Object["spec"].(map[string]any)["replicas"]
	}

	d.proxy.Set(testenv.Faults{Status: 503})
	r := d.apply(t, "-f", dir, "--timeout", "2s", "--deadline", "10s")
	var partial *cmdutil.PartialError
	require.ErrorAs(t, r.err, &partial, r.errOut)
	assert.Equal(t, []string{"cluster2"}, partial.Failed)
	assert.Regexp(t, `✗ cluster cluster2: did not answer when the plan was made \(API server https://\S+ \(context "cluster2-proxied"\): the server is currently unable to handle the request\); nothing was sent to it`, r.errOut, "no request to a member planned without, and why")
	assert.Contains(t, r.errOut, "ReplicaSchedulingPreference failover/web: cluster2 did not answer: planned over the members that did, as KubeFed plans over ready clusters (cluster1 3, cluster3 3)")
	assert.Equal(t, int64(3), replicas("cluster1"))
	assert.Equal(t, int64(3), replicas("cluster3"))

	r = d.apply(t, "-f", dir, "--timeout", "2s", "--deadline", "10s", "--no-failover")
	require.ErrorAs(t, r.err, &partial, r.errOut)
	assert.Contains(t, r.errOut, "cluster2 did not answer; --no-failover keeps their share of the plan")
	assert.Equal(t, int64(2), replicas("cluster1"), "cluster2 keeps its share: 2 each")
	assert.Equal(t, int64(2), replicas("cluster3"))

	d.proxy.Set(testenv.Faults{})
	r = d.apply(t, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	assert.NotContains(t, r.errOut, "did not answer")
	for _, c := range clusterNames {
		assert.Equal(t, int64(2), replicas(c), "every member answers again: 2 in %s", c)
	}

	// cluster2 answers, but its Deployment cannot be read for the plan
	// (a 403 on its GET): as KubeFed fails only that preference, web is
	// not planned and keeps its replicas everywhere, nothing is sent to
	// cluster2 for it, the run exits 3, and everything else (a new
	// ConfigMap) still reaches cluster2.
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx", 6, "", allClusters, "")+rspDoc(ns, "web", 6)+configMapDoc(ns, "extra", "v1", allClusters, ""))
	d.proxy.Set(testenv.Faults{Paths: []string{"/apis/apps/v1/namespaces/" + ns + "/deployments/web"}, Methods: []string{"GET"}, Status: 403})
	r = d.apply(t, "-f", dir, "--timeout", "2s", "--deadline", "10s")
	require.ErrorAs(t, r.err, &partial, r.errOut)
	assert.Equal(t, []string{"cluster2"}, partial.Failed)
	assert.NotContains(t, r.errOut, "members not answering", "cluster2 answered")
	assert.NotContains(t, r.errOut, "did not answer when the plan was made")
	assert.Regexp(t, `ReplicaSchedulingPreference failover/web: the replica state of FederatedDeployment failover/web could not be read in cluster2 \(.*403\): not planned, as KubeFed's scheduler plans nothing for a preference whose clusters it cannot read; the members read keep their replicas \(cluster1 2, cluster3 2\), and nothing is sent to cluster2 for it`, r.errOut)
	for _, c := range clusterNames {
		assert.Equal(t, int64(2), replicas(c), "no replica moves on a failed read: %s", c)
	}
	mustGet(t, "cluster2", cmGVR, ns, "extra")
	d.proxy.Set(testenv.Faults{})
}

// TestExplainLive: explain --live (and render --live, convert --live) plan
// as apply does: with cluster2 not answering, explain says the plan
// considered the members that answered and what the manifests alone would
// plan, render prints cluster1's share of that plan, and convert writes it
// as Karmada's placement and static weights.
func TestExplainLive(t *testing.T) {
	d := newFaultDrill(t)
	dir := t.TempDir()
	const ns = "explainlive"
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx", 6, "", allClusters, "")+rspDoc(ns, "web", 6))
	d.proxy.Set(testenv.Faults{Status: 503})
	// run runs the command newCmd makes with args, and returns its
	// standard output and error.
	run := func(newCmd func(*cmdutil.Factory) *cobra.Command, args ...string) (string, string, error) {
		ios, _, out, errOut := iostreams.Test()
		cmd := newCmd(&cmdutil.Factory{
			IOStreams: ios,
			Federation: func() (*members.File, error) {
				return &members.File{Path: filepath.Join(t.TempDir(), "f.yaml"), Federation: d.fed}, nil
			},
			Access: func() (members.Access, error) { return members.Access{Kubeconfig: d.kubeconfig}, nil },
		})
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		return out.String(), errOut.String(), err
	}
	explain := func(f *cmdutil.Factory) *cobra.Command { return explaincmd.NewCmdExplain(f, nil) }
	render := func(f *cmdutil.Factory) *cobra.Command { return rendercmd.NewCmdRender(f, nil) }
	convert := func(f *cmdutil.Factory) *cobra.Command { return convertcmd.NewCmdConvert(f, nil) }

	text, stderr, err := run(explain, "-f", dir, "deployment/web", "--live")
	require.NoError(t, err, stderr)
	assert.Contains(t, text, "clusters considered: the members that answered: cluster1, cluster3 (cluster2 did not: KubeFed plans over ready clusters)")
	assert.Contains(t, text, "→ plan: cluster1 3, cluster3 3")
	assert.Contains(t, text, "from the manifests alone (render without --live): cluster1 2, cluster2 2, cluster3 2")

	// explain reads the members through the clients it is given, one per
	// member for the run: the live read and the DNS read share them
	var mu sync.Mutex
	built := map[string]int{}
	counted := func(f *cmdutil.Factory) *cobra.Command {
		return explaincmd.NewCmdExplain(f, func(o *explaincmd.ExplainOptions) error {
			o.NewClient = func(a members.Access, m members.Member) (members.Client, error) {
				mu.Lock()
				built[m.Name]++
				mu.Unlock()
				return members.NewMemberClient(a, m)
			}
			return o.Run(context.Background())
		})
	}
	_, stderr, err = run(counted, "-f", dir, "deployment/web", "--live")
	require.NoError(t, err, stderr)
	assert.Equal(t, map[string]int{"cluster1": 1, "cluster3": 1}, built, "the answering members' replicas are read through the given client, built once")

	rendered, stderr, err := run(render, "-f", dir, "--live", "--cluster", "cluster1")
	require.NoError(t, err, stderr)
	assert.Contains(t, rendered, "  replicas: 3\n")
	assert.Contains(t, stderr, "cluster2 did not answer")

	rendered, _, err = run(render, "-f", dir, "--cluster", "cluster1")
	require.NoError(t, err)
	assert.Contains(t, rendered, "  replicas: 2\n", "without --live render reads no member")

	// convert --live writes the plan apply would make now as Karmada's
	// static weights; without it, the manifests' plan
	converted, stderr, err := run(convert, "-f", dir, "--to", "karmada", "--live", "--verify")
	var exitErr *cmdutil.ExitError
	require.ErrorAs(t, err, &exitErr, "the outage would be converted too: inexact, even verified")
	assert.Equal(t, 3, exitErr.Code)
	assert.Contains(t, stderr, "cluster cluster2: did not answer: --live planned without it (failover), so the output leaves its replicas out")
	assert.Contains(t, converted, "clusterNames:\n      - cluster1\n      - cluster3\n")
	assert.Contains(t, converted, "            - cluster1\n          weight: 3\n")
	assert.Contains(t, converted, "            - cluster3\n          weight: 3\n")
	assert.Contains(t, stderr, "cluster2 did not answer: planned over the members that did")

	converted, _, err = run(convert, "-f", dir, "--to", "karmada")
	require.NoError(t, err)
	assert.NotContains(t, converted, "weight: 3", "without --live the manifests' plan, 2 each")
	assert.NotContains(t, converted, "clusterNames:\n      - cluster1\n      - cluster3\n")
}
