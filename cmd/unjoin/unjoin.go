// Package unjoin implements "fedctl unjoin".
package unjoin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/cmd/drain"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// UnjoinOptions are the inputs of "fedctl unjoin".
type UnjoinOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)

	Name    string
	DryRun  string // none | client | server
	Timeout time.Duration

	// Drain moves the input's objects off the member first (--drain with
	// -f or -k; --force as drain's).
	Drain     bool
	Filenames []string
	Recursive bool
	Kustomize string
	Force     bool
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
(objects labelled app.kubernetes.io/managed-by=fedctl) and lists what it
leaves behind, by resource, with a kubectl command that deletes them.
Namespaces are listed apart and never put in that command: deleting a
namespace deletes everything in it, not only what fedctl created. When the
cluster cannot be reached within --timeout, the member is removed all the
same and unjoin says it could not check.

--dry-run (client or server: both only leave the federation file alone)
lists the same without removing the member.

--drain -f DIR first drains the member as fedctl drain does (plan without it,
check capacity, apply to the others, wait until Current, remove from it), then
unjoins it; a drain that cannot be done leaves the member joined.`,
		Example: `  # Remove member eu-1
  fedctl unjoin eu-1

  # See what would stay in eu-1, without removing it
  fedctl unjoin eu-1 --dry-run=client`,
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
			if opts.Drain {
				if err := cmdutil.CheckInputFlags(opts.Filenames, opts.Kustomize); err != nil {
					return cmdutil.FlagErrorWrap(err)
				}
			} else if len(opts.Filenames) > 0 || opts.Kustomize != "" || opts.Force {
				return cmdutil.FlagErrorf("-f, -k and --force go with --drain")
			}
			if runF != nil {
				return runF(opts)
			}
			if opts.Drain {
				if err := opts.drain(cmd.Context()); err != nil {
					return err
				}
			}
			return opts.Run(cmd.Context())
		},
	}
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: say what would be removed without writing the federation file")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "How long to spend looking up what stays in the cluster")
	cmd.Flags().BoolVar(&opts.Drain, "drain", false, "Drain the member first (fedctl drain), with the objects of -f or -k")
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmd.Flags().StringVarP(&opts.Kustomize, "kustomize", "k", "", "With --drain: build the kustomization in this directory and read its output instead of -f")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "With --drain: drain even objects pinned to the member")
	return cmd
}

// drain runs fedctl drain on the member with this command's input flags.
func (o *UnjoinOptions) drain(ctx context.Context) error {
	d := &drain.DrainOptions{IO: o.IO, Federation: o.Federation, Access: o.Access, NewClient: members.NewMemberClient,
		Cluster: o.Name, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Namespace: "default",
		Force: o.Force, DryRun: o.DryRun, Timeout: propagate.DefaultTimeout, WaitTimeout: 5 * time.Minute}
	if d.DryRun == "server" {
		d.DryRun = "client" // drain has only a client-side dry run
	}
	return d.Run(ctx)
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
	if to := file.Federation.MigrationsTo(o.Name); len(to) > 0 {
		return fmt.Errorf("cluster %s is the destination of migrations (from %s): migrate those objects back or elsewhere first (fedctl migrate)", o.Name, strings.Join(to, "; "))
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	// The file is written before the member is read: the read takes up
	// to --timeout, and a federation file changed meanwhile by another
	// fedctl would make the write fail (members.ChangedError).
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

	access.Timeout = o.Timeout
	// Listing every type draws deprecation warnings (Endpoints, ...) that
	// say nothing about what unjoin leaves behind.
	access.Warnings = nil
	lookupCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var left []members.ResourceCount
	var parents []string
	client, lookupErr := members.NewMemberClient(access, m)
	if lookupErr == nil {
		left, lookupErr = members.ManagedObjects(lookupCtx, client, file.Federation.Namespace)
		var parentsErr error
		parents, parentsErr = members.ApplySetParents(lookupCtx, client, file.Federation.Namespace)
		lookupErr = errors.Join(lookupErr, parentsErr)
	}
	o.reportLeftovers(m, access.Kubectl(m), file.Federation.Namespace, left, parents, lookupErr)
	return nil
}

// namesShown is how many object names unjoin lists per resource.
const namesShown = 10

// namespaces is the resource that is never put in a delete command:
// deleting a Namespace deletes everything in it.
const namespaces = "namespaces"

// reportLeftovers says what stays in the member, with the commands that
// delete it, run with kubectl (Access.Kubectl): in namespace alone for a
// namespace-scoped federation.
func (o *UnjoinOptions) reportLeftovers(m members.Member, kubectl, namespace string, left []members.ResourceCount, parents []string, lookupErr error) {
	cs := o.IO.ErrColorScheme()
	if len(left) > 0 {
		selector := federation.ManagedByLabel + "=" + federation.ManagedByValue
		parts := make([]string, len(left))
		var deletable []string
		var nsLeft *members.ResourceCount
		for i, c := range left {
			parts[i] = fmt.Sprintf("%d %s", c.Count, c.Resource)
			if c.Resource == namespaces {
				nsLeft = &left[i]
			} else {
				deletable = append(deletable, c.Resource)
			}
		}
		fmt.Fprintf(o.IO.ErrOut, "%s left running in cluster %s, no longer managed by fedctl (label %s): %s\n", cs.WarningIcon(), m.Name, selector, strings.Join(parts, ", "))
		for _, c := range left {
			if c.Resource != namespaces {
				fmt.Fprintf(o.IO.ErrOut, "  %s: %s\n", c.Resource, names(c.Names))
			}
		}
		if len(deletable) > 0 {
			where := "-A"
			if namespace != "" {
				where = "-n " + namespace
			}
			fmt.Fprintf(o.IO.ErrOut, "  to delete them, namespaces excepted: %s delete %s %s -l %s\n", kubectl, strings.Join(deletable, ","), where, selector)
		}
		if nsLeft != nil {
			fmt.Fprintf(o.IO.ErrOut, "  namespaces: %s\n", names(nsLeft.Names))
			fmt.Fprintf(o.IO.ErrOut, "  namespaces are in no delete command: deleting one deletes everything in it, not only what fedctl created; check what each holds (%s get all -n NAMESPACE) first\n", kubectl)
		}
	}
	if len(parents) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "%s fedctl's ApplySet parents left in cluster %s (secrets, bookkeeping of apply --prune --applyset): %s\n", cs.WarningIcon(), m.Name, names(parents))
		for _, p := range parents {
			ns, name, _ := strings.Cut(p, "/")
			fmt.Fprintf(o.IO.ErrOut, "  %s delete secret -n %s %s\n", kubectl, ns, name)
		}
	}
	switch {
	case lookupErr != nil && len(left) == 0 && len(parents) == 0:
		fmt.Fprintf(o.IO.ErrOut, "%s could not check what stays running in cluster %s: %v\n", cs.WarningIcon(), m.Name, lookupErr)
	case lookupErr != nil:
		fmt.Fprintf(o.IO.ErrOut, "%s the list above may be incomplete: %v\n", cs.WarningIcon(), lookupErr)
	case len(left) == 0 && len(parents) == 0:
		fmt.Fprintf(o.IO.ErrOut, "no objects managed by the federation remain in cluster %s\n", m.Name)
	}
}

// names lists the first namesShown names, and how many more there are.
func names(list []string) string {
	if len(list) <= namesShown {
		return strings.Join(list, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(list[:namesShown], ", "), len(list)-namesShown)
}
