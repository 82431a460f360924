package delete

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/rollout"
)

// rollout deletes wave by wave in the reverse of the waves' order (the
// canary keeps the application longest), stopping at the first wave that
// fails or whose gate fails. Before each wave the DNS records (dnsCluster)
// are written again without its members' targets, and those of the waves
// before it; before the last wave, which leaves no member serving, they
// are deleted.
func (o *DeleteOptions) rollout(ctx context.Context, in *cmdutil.Rendered, clients func(string) (members.Client, error), start time.Time, dnsCluster string) error {
	plan, err := o.Rollout.Plan(in.File, true)
	if err != nil {
		return err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", w)
	}
	del := propagate.Delete
	if o.DryRun == cmdutil.DryRunClient {
		del = propagate.PlanDelete
	}
	dnsDeleted := false
	sync := func(ctx context.Context, w rollout.Wave) *propagate.Report {
		if dnsCluster != "" && !dnsDeleted {
			// the names stop pointing at the wave's load balancers
			// before they go, and at every wave's before the last goes
			gone := plan.Between("", w.Name)
			var err error
			if slices.ContainsFunc(in.Federation.Names(), func(m string) bool { return !slices.Contains(gone, m) }) { // some still serve
				err = o.withdrawDNS(ctx, in, dnsCluster, gone, clients)
			} else if err = o.deleteDNS(ctx, in, dnsCluster); err == nil {
				dnsDeleted = true
			}
			if err != nil {
				return dnsNotWithdrawn(w, err)
			}
		}
		concurrency := o.Concurrency
		if w.MaxConcurrency > 0 {
			concurrency = w.MaxConcurrency
		}
		stream := cmdutil.NewResultStream(o.IO, o.Verbosity, o.DryRun, w.Clusters, nil)
		report := del(ctx, propagate.Input{Result: in.Result, Clusters: w.Clusters, Clients: clients, Options: propagate.Options{
			DryRun: o.DryRun == "server", Concurrency: concurrency, Deadline: o.Deadline, Start: start,
			Cascade: cascades[o.Cascade], OnResult: stream.OnResult,
		}})
		stream.Close()
		cmdutil.WriteSummary(o.IO.ErrOut, o.IO.ErrColorScheme(), report)
		return report
	}
	gateEnv, removeGateKubeconfig, err := cmdutil.GateKubeconfig(o.Rollout.Gate, o.Access, in.Federation, plan.Between(o.Rollout.From, o.Rollout.To))
	if err != nil {
		return err
	}
	defer removeGateKubeconfig()
	// a wave before --from-wave is read for what an earlier run left
	checkGone := func(ctx context.Context, w rollout.Wave) *propagate.Report {
		return propagate.PlanDelete(ctx, propagate.Input{Result: in.Result, Clusters: w.Clusters, Clients: clients, Options: propagate.Options{Concurrency: o.Concurrency}})
	}
	report, err := rollout.Run(ctx, rollout.Input{
		Plan: plan, From: o.Rollout.From, To: o.Rollout.To, Sync: sync, CheckGone: checkGone, Clients: clients, RequestTimeout: o.Timeout,
		Deadline: o.Deadline, Start: start,
		DryRun: o.DryRun != "none", Gate: o.Rollout.Gate, GateOut: o.IO.ErrOut,
		GateEnv:  gateEnv,
		Progress: o.IO.ErrOut, ColorScheme: o.IO.ErrColorScheme(),
	})
	if werr := cmdutil.WriteRolloutReport(o.IO.Out, o.Output, report); werr != nil {
		return werr
	}
	switch {
	case err != nil:
		return cmdutil.RolloutError(err)
	case report.Reason != "":
		fmt.Fprintf(o.IO.ErrOut, "%s\n", report.Reason)
		return cmdutil.MembersError(report.Failed(), false) // the DNS records wait for the last wave
	}
	if dnsDeleted {
		return cmdutil.MembersError(report.Failed(), false)
	}
	return errors.Join(cmdutil.MembersError(report.Failed(), false), o.deleteDNS(ctx, in, dnsCluster))
}

// dnsNotWithdrawn is the report of a wave not deleted because the DNS
// records could not be written without its targets: every member fails,
// and nothing was sent to any.
func dnsNotWithdrawn(w rollout.Wave, err error) *propagate.Report {
	report := &propagate.Report{DryRun: "none"}
	for _, c := range w.Clusters {
		report.Clusters = append(report.Clusters, propagate.ClusterResult{Cluster: c, Objects: []propagate.ObjectResult{},
			Error: fmt.Sprintf("DNS: %v; nothing was deleted here, so that no name points at a load balancer that is gone", err)})
	}
	return report
}
