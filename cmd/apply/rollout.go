package apply

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

// rollout applies wave by wave (--rollout): each wave is applied, waited
// for until Current, soaked and gated before the next one gets any write.
func (o *ApplyOptions) rollout(ctx context.Context, in *cmdutil.Rendered, set *propagate.ApplySet, dnsCluster string, maxDeletions *int, start time.Time) error {
	dns := cmdutil.DNSClusters{Cluster: dnsCluster}
	plan, err := o.Rollout.Plan(in.File, false)
	if err != nil {
		return err
	}
	for _, w := range plan.Warnings {
		fmt.Fprintf(o.IO.ErrOut, "Warning: %s\n", w)
	}
	res := in.Result
	var clients func(string) (members.Client, error)
	if o.DryRun != "client" || set != nil {
		if clients, _, err = o.memberClients(in); err != nil {
			return err
		}
	}
	if set != nil && !o.NamespaceGiven {
		// Looked up in the first wave alone: later waves get no request
		// before their turn.
		if err := cmdutil.FindApplySetNamespace(ctx, o.IO.ErrOut, set, firstWave(plan), clients, o.Timeout); err != nil {
			return err
		}
	}
	if set != nil {
		// the first wave's parents now, so that a DNS cluster that cannot
		// be opened stops the rollout before any write; each later wave's
		// at its turn
		if err := dns.Check(ctx, o.dnsCheck(in, set, clients), firstWave(plan)); err != nil {
			return err
		}
	}
	sync := func(ctx context.Context, w rollout.Wave) *propagate.Report {
		if set != nil {
			// Check fails only on an ended context here, which the run
			// below reports
			_ = dns.Check(ctx, o.dnsCheck(in, set, clients), w.Clusters)
		}
		if o.DryRun == "client" && set == nil {
			return propagate.Plan(res, w.Clusters)
		}
		run := propagate.Run
		dry := o.DryRun
		if o.DryRun == "client" {
			run, dry = propagate.PlanLive, "none"
		}
		concurrency := o.Concurrency
		if w.MaxConcurrency > 0 {
			concurrency = w.MaxConcurrency
		}
		stream := cmdutil.NewResultStream(o.IO, o.Verbosity, dry, w.Clusters, res.Targets)
		var onResult func(string, propagate.ObjectResult)
		if o.DryRun != "client" {
			onResult = stream.OnResult
		}
		report := run(ctx, propagate.Input{Result: res, Clusters: w.Clusters, Clients: clients, Options: propagate.Options{
			Cordoned: in.Federation.CordonedNames(), FieldManager: o.FieldManager, Force: o.ForceConflicts, Adopt: o.Adopt,
			DryRun: o.DryRun == "server", Concurrency: concurrency, Deadline: o.Deadline, Start: start,
			ApplySet: set, MaxDeletions: maxDeletions, OnResult: onResult,
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
	rin := rollout.Input{
		Plan: plan, From: o.Rollout.From, To: o.Rollout.To, Sync: sync,
		Result: res, Clients: clients, Cordoned: in.Federation.CordonedNames(), RequestTimeout: o.Timeout, Deadline: o.Deadline, Start: start,
		DryRun: o.DryRun != "none", Gate: o.Rollout.Gate, GateOut: o.IO.ErrOut,
		GateEnv:  gateEnv,
		Progress: o.IO.ErrOut, Live: o.IO.IsStderrTTY(), ColorScheme: o.IO.ErrColorScheme(),
	}
	report, err := rollout.Run(ctx, rin)
	if werr := cmdutil.WriteRolloutReport(o.IO.Out, o.Output, report); werr != nil {
		return werr
	}
	switch {
	case err != nil:
		return cmdutil.RolloutError(err)
	case report.Reason != "":
		fmt.Fprintf(o.IO.ErrOut, "%s\n", report.Reason)
		return cmdutil.MembersError(report.Failed(), false) // DNS waits for the last wave
	}
	err = o.writeDNS(ctx, in, dns, set, clients)
	return errors.Join(cmdutil.MembersError(report.Failed(), false), err)
}

// firstWave are the members of the first wave that holds any.
func firstWave(p *rollout.Plan) []string {
	for _, w := range p.Waves {
		if len(w.Clusters) > 0 {
			return w.Clusters
		}
	}
	return nil
}
