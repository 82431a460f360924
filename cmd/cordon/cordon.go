// Package cordon implements "fedctl cordon" and "fedctl uncordon": kubectl's
// words for nodes, applied to member clusters.
package cordon

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

// CordonOptions are the inputs of "fedctl cordon" and "fedctl uncordon".
type CordonOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	// Now is the clock for the cordon's time; time.Now when nil.
	Now func() time.Time

	Name   string
	Reason string
	// Uncordon lifts the cordon instead.
	Uncordon bool
}

// NewCmdCordon returns "fedctl cordon". runF, when set, replaces Run.
func NewCmdCordon(f *cmdutil.Factory, runF func(*CordonOptions) error) *cobra.Command {
	opts := &CordonOptions{IO: f.IOStreams, Federation: f.Federation}
	cmd := &cobra.Command{
		Use:   "cordon CLUSTER [--reason TEXT]",
		Short: "Keep new objects and replica plans off a member cluster",
		Long: `Mark a member cluster cordoned in the federation file, as kubectl cordon marks
a node unschedulable. apply then creates no new object there and leaves it out
of every ReplicaSchedulingPreference's plan; what already runs there stays:
nothing is removed from it for no longer being placed there, and objects that
exist there are still updated. get clusters shows it. Lift it with uncordon.`,
		Example: `  # Cordon eu-1 before its maintenance
  fedctl cordon eu-1 --reason "node pool upgrade"`,
		Args:              cmdutil.ExactArgs(1, "CLUSTER"),
		ValidArgsFunction: cmdutil.ClusterNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return opts.Run()
		},
	}
	cmd.Flags().StringVar(&opts.Reason, "reason", "", "Why the member is cordoned, recorded in the federation file")
	return cmd
}

// NewCmdUncordon returns "fedctl uncordon". runF, when set, replaces Run.
func NewCmdUncordon(f *cmdutil.Factory, runF func(*CordonOptions) error) *cobra.Command {
	opts := &CordonOptions{IO: f.IOStreams, Federation: f.Federation, Uncordon: true}
	cmd := &cobra.Command{
		Use:   "uncordon CLUSTER",
		Short: "Let new objects and replica plans use a member cluster again",
		Long: `Lift a member cluster's cordon: the next apply places objects and plans
replicas there again.`,
		Example: `  # eu-1 is back from maintenance
  fedctl uncordon eu-1`,
		Args:              cmdutil.ExactArgs(1, "CLUSTER"),
		ValidArgsFunction: cmdutil.ClusterNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return opts.Run()
		},
	}
	return cmd
}

// Run records or lifts the cordon in the federation file.
func (o *CordonOptions) Run() error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	fed := file.Federation.Clone()
	m, ok := fed.Member(o.Name)
	if !ok {
		return &members.NotMemberError{Name: o.Name, Members: fed.Names()}
	}
	cs := o.IO.ErrColorScheme()
	switch {
	case o.Uncordon && m.Cordoned == nil:
		fmt.Fprintf(o.IO.ErrOut, "cluster/%s not cordoned (no change)\n", o.Name)
		return nil
	case o.Uncordon:
		m.Cordoned = nil
	case m.Cordoned != nil && m.Cordoned.Reason == o.Reason:
		fmt.Fprintf(o.IO.ErrOut, "cluster/%s already cordoned (no change)\n", o.Name)
		return nil
	default:
		now := time.Now
		if o.Now != nil {
			now = o.Now
		}
		m.Cordoned = &members.Cordon{Reason: o.Reason, Since: now().UTC().Format(time.RFC3339)}
	}
	if err := fed.Put(m, true); err != nil {
		return err
	}
	if err := file.Save(fed); err != nil {
		return err
	}
	verb := "cordoned"
	if o.Uncordon {
		verb = "uncordoned"
	}
	fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s %s\n", cs.SuccessIcon(), o.Name, verb)
	return nil
}
