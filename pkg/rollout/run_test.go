package rollout

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/parallel"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	nsType     = typeconfig.Type{Version: "v1", Kind: "Namespace", Plural: "namespaces", Scope: typeconfig.Cluster}
	deployType = typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
)

const webApp = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: nginx}]
  placement: {clusterSelector: {}}
`

// runFixture is webApp rendered for members c1, c2 and c3, each a fake
// member; Sync applies with propagate, then runs afterSync for each member
// of the wave (what its controllers then do).
type runFixture struct {
	res       *render.Result
	members   map[string]*memberstest.Fake
	afterSync func(cluster string)
	syncs     atomic.Int32
}

func newRunFixture(t *testing.T) *runFixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.yaml")
	require.NoError(t, os.WriteFile(path, []byte(webApp), 0o600))
	fed := members.New()
	f := &runFixture{members: map[string]*memberstest.Fake{}}
	for _, name := range []string{"c1", "c2", "c3"} {
		require.NoError(t, fed.Put(members.Member{Name: name}, false))
		f.members[name] = memberstest.New(nsType, deployType)
		f.members[name].Generations = true
	}
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, path), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	f.res = out.Result
	return f
}

func (f *runFixture) clients(c string) (members.Client, error) { return f.members[c], nil }

func (f *runFixture) input(plan *Plan) Input {
	return Input{Plan: plan, Result: f.res, Clients: f.clients, Interval: 10 * time.Millisecond,
		Sync: func(ctx context.Context, w Wave) *propagate.Report {
			f.syncs.Add(1)
			report := propagate.Run(ctx, propagate.Input{Result: f.res, Clusters: w.Clusters, Clients: f.clients})
			if f.afterSync != nil {
				for _, c := range w.Clusters {
					f.afterSync(c)
				}
			}
			return report
		}}
}

// setDeployment gives the Deployment in cluster the status its controller
// writes: ready, or failed (its progress deadline exceeded).
func (f *runFixture) setDeployment(cluster string, ready bool) {
	f.members[cluster].Edit(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"), func(d *unstructured.Unstructured) {
		progressing := map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}
		if !ready {
			progressing = map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"}
		}
		d.Object["status"] = map[string]any{
			"observedGeneration": d.GetGeneration(), "replicas": int64(1), "updatedReplicas": int64(1), "readyReplicas": int64(1), "availableReplicas": int64(1),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}, progressing},
		}
		if !ready {
			d.Object["status"].(map[string]any)["readyReplicas"] = int64(0)
			d.Object["status"].(map[string]any)["availableReplicas"] = int64(0)
		}
	})
}

// guard bounds a test's run: a rollout that waited for its (long) wave
// bound would end Interrupted by it instead of the state asserted.
func guard(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestRunFailedMemberDoesNotFailTheWave: with maxFailures 1, a member whose
// Deployment fails is the wave's one failure, and the wave waits for the
// member still progressing instead of failing it with the first.
func TestRunFailedMemberDoesNotFailTheWave(t *testing.T) {
	f := newRunFixture(t)
	var later sync.WaitGroup
	t.Cleanup(later.Wait)
	f.afterSync = func(c string) {
		switch c {
		case "c1":
			f.setDeployment("c1", false)
		case "c2": // Current a little later: InProgress when c1 fails
			later.Add(1)
			time.AfterFunc(150*time.Millisecond, func() { defer later.Done(); f.setDeployment("c2", true) })
		}
	}
	rep, err := Run(guard(t), f.input(&Plan{Timeout: time.Hour, MaxFailures: 1, Waves: []Wave{{Name: "all", Clusters: []string{"c1", "c2"}}}}))
	require.NoError(t, err)
	w := rep.Waves[0]
	assert.Equal(t, Succeeded, w.State, w.Message)
	assert.Equal(t, []string{"c1"}, w.FailedClusters)
	assert.Equal(t, "Current in c2; c1 failed, within maxFailures 1", w.Message)
}

// TestRunNoHealthyMember: maxFailures tolerates failed members, not a wave
// where every member failed.
func TestRunNoHealthyMember(t *testing.T) {
	f := newRunFixture(t)
	f.afterSync = func(c string) { f.setDeployment(c, false) }
	rep, err := Run(guard(t), f.input(&Plan{Timeout: time.Hour, MaxFailures: 1, Waves: []Wave{
		{Name: "canary", Clusters: []string{"c1"}}, {Name: "rest", Clusters: []string{"c2", "c3"}}}}))
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, Failed, rep.Waves[0].State)
	assert.Contains(t, rep.Waves[0].Message, "not Current: 1 of 1 members failed (maxFailures 1, but no member of the wave is left): c1: ")
	assert.Equal(t, NotStarted, rep.Waves[1].State)
	assert.EqualValues(t, 1, f.syncs.Load(), "rest got nothing")
}

// TestRunToWaveEmpty: --to-wave naming a wave without members still ends
// the run there, saying so, so that the command neither writes nor deletes
// DNS records as after the last wave.
func TestRunToWaveEmpty(t *testing.T) {
	f := newRunFixture(t)
	in := f.input(&Plan{Timeout: time.Hour, Waves: []Wave{{Name: "canary", Clusters: []string{}}, {Name: "rest", Clusters: []string{"c1"}}}})
	in.To = "canary"
	rep, err := Run(guard(t), in)
	require.NoError(t, err)
	assert.Equal(t, "--to-wave canary: later waves are left for another run", rep.Reason)
	assert.Equal(t, []string{Skipped, NotStarted}, []string{rep.Waves[0].State, rep.Waves[1].State})
	assert.Zero(t, f.syncs.Load())
}

// TestRunFromWaveChecksWithoutWaiting: a wave before --from-wave whose
// objects are not there was never rolled out: it fails at once, naming
// them, instead of being waited for until the wave timeout.
func TestRunFromWaveChecksWithoutWaiting(t *testing.T) {
	f := newRunFixture(t)
	in := f.input(&Plan{Timeout: time.Hour, Waves: []Wave{{Name: "canary", Clusters: []string{"c1"}}, {Name: "rest", Clusters: []string{"c2"}}}})
	in.From = "rest"
	rep, err := Run(guard(t), in)
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, Failed, rep.Waves[0].State, "not Interrupted by the test's guard: no wait")
	assert.Contains(t, rep.Waves[0].Message, "before --from-wave, not Current in c1: not applied, so never rolled out there: c1: ")
	assert.Contains(t, rep.Waves[0].Message, "Deployment shop/web")
	require.NotEmpty(t, rep.Waves[0].NotReady, "-o json names the absent objects too")
	for _, n := range rep.Waves[0].NotReady {
		assert.Equal(t, "c1", n.Cluster)
	}
	assert.Zero(t, f.syncs.Load())
	assert.Empty(t, f.members["c1"].Writes(), "a checked wave is never written")
}

// TestRunObjectGoneAfterApply: an object that is gone after the wave's
// apply (a Job's TTL, another tool's cleanup) cannot become Current by
// waiting: its member is bad at once, and the wait neither spins reading
// the members again and again nor runs to the wave's bound.
func TestRunObjectGoneAfterApply(t *testing.T) {
	f := newRunFixture(t)
	web := memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web")
	f.afterSync = func(c string) {
		if c == "c1" {
			f.members["c1"].Remove(web)
		} else {
			f.setDeployment(c, true)
		}
	}
	rep, err := Run(guard(t), f.input(&Plan{Timeout: time.Hour, MaxFailures: 1, Waves: []Wave{{Name: "all", Clusters: []string{"c1", "c2"}}}}))
	require.NoError(t, err)
	w := rep.Waves[0]
	assert.Equal(t, Succeeded, w.State, "not Interrupted by the test's guard: %s", w.Message)
	assert.Equal(t, []string{"c1"}, w.FailedClusters)
	lists := 0
	for _, call := range f.members["c1"].Calls() {
		if strings.HasPrefix(call, "LIST ") {
			lists++
		}
	}
	assert.Less(t, lists, 10, "c1 was not read again and again")
	require.NotEmpty(t, w.NotReady)
	assert.Equal(t, "c1", w.NotReady[0].Cluster)
	assert.Equal(t, "NotApplied", w.NotReady[0].Status)
}

// TestRunFromWaveChecksTheVersion: a wave before --from-wave that holds
// another version of an object (rolled out at an earlier commit) has not
// had this change: the check fails, naming it, rather than let the change
// skip the wave.
func TestRunFromWaveChecksTheVersion(t *testing.T) {
	f := newRunFixture(t)
	report := propagate.Run(context.Background(), propagate.Input{Result: f.res, Clusters: []string{"c1"}, Clients: f.clients})
	require.Empty(t, report.Failed())
	f.setDeployment("c1", true) // v1 rolled out to the canary, and Current

	path := filepath.Join(t.TempDir(), "app.yaml")
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(webApp, "image: nginx", "image: nginx:2", 1)), 0o600))
	fed := members.New()
	for _, name := range []string{"c1", "c2", "c3"} {
		require.NoError(t, fed.Put(members.Member{Name: name}, false))
	}
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, path), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	f.res = out.Result // v2

	in := f.input(&Plan{Timeout: time.Hour, Waves: []Wave{{Name: "canary", Clusters: []string{"c1"}}, {Name: "rest", Clusters: []string{"c2"}}}})
	in.From = "rest"
	rep, err := Run(guard(t), in)
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, Failed, rep.Waves[0].State, rep.Waves[0].Message)
	assert.Contains(t, rep.Waves[0].Message, "not what the input gives, so this change was never rolled out there: c1: Deployment shop/web (Drifted); start from an earlier wave")
	assert.Equal(t, []string{"c1"}, rep.Waves[0].FailedClusters)
	assert.Zero(t, f.syncs.Load(), "rest got nothing")

	// once the canary has v2, the check passes
	report = propagate.Run(context.Background(), propagate.Input{Result: f.res, Clusters: []string{"c1"}, Clients: f.clients})
	require.Empty(t, report.Failed())
	f.setDeployment("c1", true)
	f.afterSync = func(c string) { f.setDeployment(c, true) }
	rep, err = Run(guard(t), in)
	require.NoError(t, err)
	assert.Equal(t, Checked, rep.Waves[0].State, rep.Waves[0].Message)
}

// TestRunFromWaveChecksEveryMember: with maxFailures 1, one member of a
// checked wave without its objects is the wave's one failure, and the
// other members are still waited for: one that is not Current fails the
// check.
func TestRunFromWaveChecksEveryMember(t *testing.T) {
	f := newRunFixture(t)
	report := propagate.Run(context.Background(), propagate.Input{Result: f.res, Clusters: []string{"c2"}, Clients: f.clients})
	require.Empty(t, report.Failed())
	f.setDeployment("c2", false) // applied, and failed
	in := f.input(&Plan{Timeout: time.Hour, MaxFailures: 1, Waves: []Wave{{Name: "canary", Clusters: []string{"c1", "c2"}}, {Name: "rest", Clusters: []string{"c3"}}}})
	in.From = "rest"
	rep, err := Run(guard(t), in)
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, Failed, rep.Waves[0].State, rep.Waves[0].Message)
	assert.Equal(t, []string{"c1", "c2"}, rep.Waves[0].FailedClusters)
	assert.Contains(t, rep.Waves[0].Message, "not applied, so never rolled out there: c1: ")

	f.setDeployment("c2", true)
	f.afterSync = func(c string) { f.setDeployment(c, true) } // rest gets Current
	rep, err = Run(guard(t), in)
	require.NoError(t, err)
	assert.Equal(t, Checked, rep.Waves[0].State, "c1 alone is within maxFailures 1: %s", rep.Waves[0].Message)
}

// TestRunDeadline: --deadline bounds the whole rollout, not only the
// writes: a wave that does not get Current fails at the deadline, long
// before its wave timeout, and says which bound ended it.
func TestRunDeadline(t *testing.T) {
	f := newRunFixture(t) // the Deployments never get a status: InProgress
	in := f.input(&Plan{Timeout: time.Hour, Waves: []Wave{{Name: "all", Clusters: []string{"c1"}}}})
	in.Deadline, in.Start = 300*time.Millisecond, time.Now()
	rep, err := Run(guard(t), in)
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, Failed, rep.Waves[0].State, "ended by --deadline, not by the test's guard")
	assert.Equal(t, "not Current within the run's deadline (--deadline 300ms): 1 of 1 members failed (maxFailures 0): c1: Deployment shop/web: InProgress: Replicas: 0/1", rep.Waves[0].Message)

	// a soak that the deadline cuts short names the deadline
	f.afterSync = func(c string) { f.setDeployment(c, true) }
	in.Plan.Soak = time.Minute
	in.Start = time.Now()
	rep, err = Run(guard(t), in)
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, "the soak of 1m did not end within the run's deadline (--deadline 300ms)", rep.Waves[0].Message)

	// no Start: the deadline is from now, not from the year 1
	in.Plan.Soak = 0
	in.Deadline, in.Start = time.Minute, time.Time{}
	rep, err = Run(guard(t), in)
	require.NoError(t, err)
	assert.Equal(t, Succeeded, rep.Waves[0].State, rep.Waves[0].Message)
}

// TestRunDeleteChecksEarlierWaves: delete --from-wave reads the waves
// before it; one that still holds the input's objects stops the run, as
// the DNS records would otherwise go while it serves.
func TestRunDeleteChecksEarlierWaves(t *testing.T) {
	left := map[string][]propagate.ObjectResult{"c1": {{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "settings", Action: propagate.Deleted}}}
	var synced []string
	in := Input{
		Plan: &Plan{Timeout: time.Hour, Waves: []Wave{{Name: "rest", Clusters: []string{"c1"}}, {Name: "canary", Clusters: []string{"c2"}}}},
		From: "canary",
		CheckGone: func(_ context.Context, w Wave) *propagate.Report {
			r := &propagate.Report{}
			for _, c := range w.Clusters {
				r.Clusters = append(r.Clusters, propagate.ClusterResult{Cluster: c, Objects: left[c]})
			}
			return r
		},
		Sync: func(_ context.Context, w Wave) *propagate.Report {
			synced = append(synced, w.Clusters...)
			return &propagate.Report{}
		},
	}
	rep, err := Run(guard(t), in)
	var stopped *StoppedError
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, "before --from-wave, not deleted: c1: still holds ConfigMap shop/settings; start from an earlier wave", rep.Waves[0].Message)
	assert.Empty(t, synced)

	// every reason of a member is told, not the last one alone
	left["c1"] = []propagate.ObjectResult{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "settings", Action: propagate.Deleted},
		{APIVersion: "v1", Kind: "Secret", Namespace: "shop", Name: "a", Action: propagate.Failed, Error: "forbidden"},
		{APIVersion: "v1", Kind: "Secret", Namespace: "shop", Name: "b", Action: propagate.Failed, Error: "forbidden"},
	}
	rep, err = Run(guard(t), in)
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, "before --from-wave, not deleted: c1: still holds ConfigMap shop/settings; could not read Secret shop/a: forbidden, Secret shop/b: forbidden; start from an earlier wave", rep.Waves[0].Message)
	assert.Empty(t, synced)

	delete(left, "c1")
	rep, err = Run(guard(t), in)
	require.NoError(t, err)
	assert.Equal(t, Checked, rep.Waves[0].State)
	assert.Equal(t, "before --from-wave: gone, not written", rep.Waves[0].Message)
	assert.Equal(t, []string{"c2"}, synced)

	// nothing to read the wave with: not taken as gone
	synced = nil
	in.CheckGone = nil
	rep, err = Run(guard(t), in)
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, Failed, rep.Waves[0].State, rep.Waves[0].Message)
	assert.Empty(t, synced)
}

// TestRunDeleteFailureSaysDelete: a delete wave's failures are the
// delete's, not "apply".
func TestRunDeleteFailureSaysDelete(t *testing.T) {
	in := Input{
		Plan: &Plan{Timeout: time.Hour, Waves: []Wave{{Name: "rest", Clusters: []string{"c1", "c2"}}}},
		Sync: func(context.Context, Wave) *propagate.Report {
			return &propagate.Report{Clusters: []propagate.ClusterResult{{Cluster: "c1", Error: "connection refused"}, {Cluster: "c2"}}}
		},
	}
	rep, _ := Run(guard(t), in)
	assert.Equal(t, "delete: 1 of 2 members failed (maxFailures 0): c1: connection refused", rep.Waves[0].Message)
}

// TestRunInterruptedAfterTheSoak: Ctrl-C while the wave is read again
// after its soak is an interruption, not members failing "after the
// soak: context canceled".
func TestRunInterruptedAfterTheSoak(t *testing.T) {
	f := newRunFixture(t)
	f.afterSync = func(c string) { f.setDeployment(c, true) }
	ctx, cancel := context.WithCancel(guard(t))
	defer cancel()
	var soaking atomic.Bool
	in := f.input(&Plan{Timeout: time.Hour, Soak: 20 * time.Millisecond, Waves: []Wave{{Name: "all", Clusters: []string{"c1", "c2"}}}})
	in.Progress = progressFunc(func(line string) {
		if strings.Contains(line, "soaking") {
			soaking.Store(true)
		}
	})
	in.Clients = func(c string) (members.Client, error) {
		return cancelOnRead{Client: f.members[c], when: &soaking, cancel: cancel}, nil
	}
	rep, err := Run(ctx, in)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, Interrupted, rep.Waves[0].State)
	assert.Equal(t, "interrupted while reading the wave after the soak; run the same command again to resume", rep.Waves[0].Message)
	assert.Empty(t, rep.Waves[0].FailedClusters)
}

// progressFunc calls fn with each write of the rollout's progress.
type progressFunc func(string)

func (p progressFunc) Write(b []byte) (int, error) { p(string(b)); return len(b), nil }

// cancelOnRead cancels the run on its first read once when is set.
type cancelOnRead struct {
	members.Client
	when   *atomic.Bool
	cancel context.CancelFunc
}

func (c cancelOnRead) Get(ctx context.Context, m members.Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	if c.when.Load() {
		c.cancel()
	}
	return c.Client.Get(ctx, m, namespace, name)
}

func (c cancelOnRead) List(ctx context.Context, m members.Mapping, opts members.ListOptions) ([]unstructured.Unstructured, error) {
	if c.when.Load() {
		c.cancel()
	}
	return c.Client.List(ctx, m, opts)
}

// TestRunEndedBetweenWaves: an interrupt or the --deadline that comes
// between two waves stops the run before the next one: it is not started
// (no Sync), and is listed with the untouched, rather than reported as a
// wave whose members all failed while applying.
func TestRunEndedBetweenWaves(t *testing.T) {
	f := newRunFixture(t)
	f.afterSync = func(c string) { f.setDeployment(c, true) }
	plan := &Plan{Timeout: time.Hour, Waves: []Wave{{Name: "canary", Clusters: []string{"c1"}}, {Name: "rest", Clusters: []string{"c2", "c3"}}}}

	ctx, cancel := context.WithCancel(guard(t))
	defer cancel()
	in := f.input(plan)
	in.Progress = progressFunc(func(line string) {
		if strings.Contains(line, "wave canary:") { // the canary's verdict
			cancel()
		}
	})
	rep, err := Run(ctx, in)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, Succeeded, rep.Waves[0].State)
	assert.Equal(t, NotStarted, rep.Waves[1].State)
	assert.Empty(t, rep.Waves[1].FailedClusters, "nothing was sent to them")
	assert.Equal(t, "rest", rep.StoppedAt)
	assert.Equal(t, "interrupted before the wave started", rep.Reason)
	assert.Equal(t, int32(1), f.syncs.Load(), "the second wave is not synced")

	f.syncs.Store(0)
	in = f.input(plan)
	in.Deadline, in.Start = 2*time.Second, time.Now()
	in.Progress = progressFunc(func(line string) {
		if strings.Contains(line, "wave canary:") {
			time.Sleep(time.Until(in.Start.Add(in.Deadline))) // the deadline passes here
		}
	})
	var stopped *StoppedError
	var out strings.Builder
	in.Progress = io.MultiWriter(in.Progress, &out)
	rep, err = Run(guard(t), in)
	require.ErrorAs(t, err, &stopped)
	assert.Equal(t, NotStarted, rep.Waves[1].State)
	assert.Equal(t, Succeeded, rep.Waves[0].State, "within the deadline")
	assert.Equal(t, "deadline reached (--deadline 2s) before the wave started", rep.Reason)
	assert.Equal(t, []string{"rest (c2, c3)"}, stopped.Untouched)
	assert.Contains(t, out.String(), "not touched: rest (c2, c3)\n")
	assert.Equal(t, int32(1), f.syncs.Load())
}

// TestRunPanicIsABug: a bug in a member's sync stops the rollout at its
// wave and is returned as the bug it is (exit 1, "please report"), not
// tolerated as a member failure within maxFailures.
func TestRunPanicIsABug(t *testing.T) {
	f := newRunFixture(t)
	in := f.input(&Plan{Timeout: time.Hour, MaxFailures: 1, Waves: []Wave{{Name: "canary", Clusters: []string{"c1", "c2"}}, {Name: "rest", Clusters: []string{"c3"}}}})
	in.Sync = func(ctx context.Context, w Wave) *propagate.Report {
		f.syncs.Add(1)
		return &propagate.Report{Clusters: []propagate.ClusterResult{
			{Cluster: "c1", Error: "internal error: boom", Panic: &parallel.Panic{Value: "boom"}},
			{Cluster: "c2"},
		}}
	}
	rep, err := Run(guard(t), in)
	var p *parallel.Panic
	require.ErrorAs(t, err, &p)
	assert.Equal(t, Failed, rep.Waves[0].State)
	assert.Equal(t, "a bug stopped the wave: internal error: boom", rep.Waves[0].Message)
	assert.Equal(t, NotStarted, rep.Waves[1].State)
	assert.Equal(t, int32(1), f.syncs.Load())
}
