package delete

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/rollout"
)

// rollout deletes wave by wave in the reverse of the waves' order (the
// canary keeps the application longest), stopping at the first wave that
// fails or whose gate fails. The DNS records (dnsCluster) go after the
// last wave, as they still serve the members not reached yet.
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
	sync := func(ctx context.Context, w rollout.Wave) *propagate.Report {
		concurrency := o.Concurrency
		if w.MaxConcurrency > 0 {
			concurrency = w.MaxConcurrency
		}
		stream := cmdutil.NewResultStream(o.IO, o.Verbosity, o.DryRun, cmdutil.Totals(w.Clusters, nil))
		report := del(ctx, propagate.Input{Result: in.Result, Clusters: w.Clusters, Clients: clients, Options: propagate.Options{
			DryRun: o.DryRun == "server", Concurrency: concurrency, Deadline: o.Deadline, Start: start,
			Cascade: cascades[o.Cascade], OnResult: stream.OnResult,
		}})
		stream.Close()
		cmdutil.WriteSummary(o.IO.ErrOut, o.IO.ErrColorScheme(), report)
		return report
	}
	gateEnv, removeGateKubeconfig, err := cmdutil.GateKubeconfig(o.Rollout.Gate, o.Access, in.Federation)
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
	return errors.Join(cmdutil.MembersError(report.Failed(), false), o.deleteDNS(ctx, in, dnsCluster))
}
