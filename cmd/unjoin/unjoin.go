// Package unjoin implements "fedctl unjoin".
package unjoin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

// UnjoinOptions are the inputs of "fedctl unjoin".
type UnjoinOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)

	Name    string
	DryRun  string // none | client | server
	Timeout time.Duration
}

// NewCmdUnjoin returns the unjoin command. runF, when set, replaces Run.
func NewCmdUnjoin(f *cmdutil.Factory, runF func(*UnjoinOptions) error) *cobra.Command {
	opts := &UnjoinOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access}
	cmd := &cobra.Command{
		Use:   "unjoin NAME",
		Short: "Remove a member cluster from the federation",
		Long: `Remove a member cluster from the federation file.

Like kubefedctl unjoin, this does not delete what the federation propagated
to the cluster: those objects keep running, unmanaged. unjoin looks them up
(objects labelled kubefed.io/managed=true) and says what it leaves behind and
how to delete it. When the cluster cannot be reached within --timeout, the
member is removed all the same and unjoin says it could not check.`,
		Example: `  # Remove member eu-1
  fedctl unjoin eu-1`,
		Args:              cmdutil.ExactArgs(1, "NAME"),
		ValidArgsFunction: cmdutil.ClusterNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			if opts.Timeout <= 0 {
				return cmdutil.FlagErrorf("--timeout must be positive, got %s", opts.Timeout)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: say what would be removed without writing the federation file")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "How long to spend looking up what stays in the cluster")
	return cmd
}

// Run removes the member and reports what stays in its cluster.
func (o *UnjoinOptions) Run(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	m, ok := file.Federation.Member(o.Name)
	if !ok {
		return &members.NotMemberError{Name: o.Name, Members: file.Federation.Names()}
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	// Listing every type draws deprecation warnings (Endpoints, ...) that
	// say nothing about what unjoin leaves behind.
	access.Warnings = nil
	lookupCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var left []members.ResourceCount
	client, lookupErr := members.NewMemberClient(access, m)
	if lookupErr == nil {
		left, lookupErr = members.ManagedObjects(lookupCtx, client)
	}

	cs := o.IO.ErrColorScheme()
	if cmdutil.IsDryRun(o.DryRun) {
		fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s would be unjoined; dry run, %s not written\n", cs.WarningIcon(), o.Name, file.Path)
	} else {
		fed := file.Federation.Clone()
		fed.Remove(o.Name)
		if err := file.Save(fed); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s unjoined\n", cs.SuccessIcon(), o.Name)
	}
	o.reportLeftovers(m, left, lookupErr)
	return nil
}

func (o *UnjoinOptions) reportLeftovers(m members.Member, left []members.ResourceCount, lookupErr error) {
	cs := o.IO.ErrColorScheme()
	if len(left) > 0 {
		parts := make([]string, len(left))
		resources := make([]string, len(left))
		for i, c := range left {
			parts[i] = fmt.Sprintf("%d %s", c.Count, c.Resource)
			resources[i] = c.Resource
		}
		fmt.Fprintf(o.IO.ErrOut, "%s left running in cluster %s, no longer managed by fedctl: %s\n", cs.WarningIcon(), m.Name, strings.Join(parts, ", "))
		fmt.Fprintf(o.IO.ErrOut, "  to delete them: kubectl --context %s delete %s -A -l %s=%s\n",
			m.ContextName(), strings.Join(resources, ","), federation.ManagedLabel, federation.ManagedLabelValue)
	}
	switch {
	case lookupErr != nil && len(left) == 0:
		fmt.Fprintf(o.IO.ErrOut, "%s could not check what stays running in cluster %s: %v\n", cs.WarningIcon(), m.Name, lookupErr)
	case lookupErr != nil:
		fmt.Fprintf(o.IO.ErrOut, "%s the list above may be incomplete: %v\n", cs.WarningIcon(), lookupErr)
	case len(left) == 0:
		fmt.Fprintf(o.IO.ErrOut, "no objects managed by the federation remain in cluster %s\n", m.Name)
	}
}
