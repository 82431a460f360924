// Package dns implements "fedctl dns": the DNSEndpoints of the input's DNS
// records, computed from what the members say.
package dns

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// DNSOptions are the inputs of "fedctl dns".
type DNSOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	NewClient  func(members.Access, members.Member) (members.Client, error)

	Filenames []string
	Recursive bool
	Kustomize string
	Selector  string
	Namespace string
	Output    string
	// Why prints, per record and member, the targets and why.
	Why     bool
	Timeout time.Duration
	Plan    cmdutil.PlanFlags
	DNS     cmdutil.DNSFlags
}

// NewCmdDNS returns "fedctl dns". runF, when set, replaces Run.
func NewCmdDNS(f *cmdutil.Factory, runF func(*DNSOptions) error) *cobra.Command {
	opts := &DNSOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient}
	cmd := &cobra.Command{
		Use:   "dns (-f FILENAME | -k DIR) [-o yaml|json] [--why]",
		Short: "Print the DNSEndpoints of the input's DNS records, from the members' load balancers",
		Long: `Read the members' Services and Ingresses that the input's ServiceDNSRecords
and IngressDNSRecords name (their load balancers, whether pods back them) and
print the ExternalDNS DNSEndpoints fedctl apply writes for them, with
KubeFed's names: <service>.<namespace>.<domainRef>.svc.<domain> for every
member, .svc.<region>.<domain> and .svc.<zone>.<region>.<domain> per
region and zone, a CNAME to the level above where a level has no target.
Members are read in parallel and never written.

A member's region and zones come from the federation file (fedctl join
--region --zone), else from its nodes' topology.kubernetes.io labels.
spec.weighting: replicas on a record, or --dns-weights replicas, gives each
member an endpoint of its own weighted by its replicas of the Deployment the
Service selects. A member that cannot be read keeps the targets the last
apply recorded (read from the DNS cluster, when --dns-context or a Domain's
spec.context names it) unless --dns-withdraw-unreachable, and exits 3.

--why prints, per record and member, what the member gives and why.`,
		Example: `  # The DNSEndpoints apply would write
  fedctl dns -f manifests/

  # Why each member gives what it gives
  fedctl dns -f manifests/ --why`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmdutil.AddInputFlags(cmd, &opts.Kustomize, &opts.Selector)
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced objects that name none")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "yaml", "Output format: yaml or json")
	cmd.Flags().BoolVar(&opts.Why, "why", false, "Print, per record and member, the targets the member gives and why, instead of the DNSEndpoints")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", propagate.DefaultTimeout, "How long each member may take to answer")
	cmdutil.AddPlanFlags(cmd, &opts.Plan)
	cmdutil.AddDNSFlags(cmd, &opts.DNS)
	return cmd
}

// Validate checks the flags alone.
func (o *DNSOptions) Validate() error {
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		return err
	}
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output must be yaml or json, got %q", o.Output)
	}
	return o.DNS.Validate(false, nil) // no --dns-forget here
}

// Run computes and prints.
func (o *DNSOptions) Run(ctx context.Context) error {
	// One client per member for the run: the live read's, the DNS
	// computation's and, for a member, the DNS cluster's.
	clients := cmdutil.NewMemberClients(o.Access, o.NewClient, cmdutil.Tuning{Timeout: o.Timeout})
	r, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context: ctx, Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize,
		Selector: o.Selector, Namespace: o.Namespace, Failing: cmdutil.FailOnInput,
		Live: cmdutil.LiveReader(clients, o.Timeout, o.Plan),
	})
	if err != nil {
		return err
	}
	if !r.Set.DNS.Records() {
		input := slices.DeleteFunc(append(slices.Clone(o.Filenames), o.Kustomize), func(s string) bool { return s == "" })
		return fmt.Errorf("no ServiceDNSRecord or IngressDNSRecord in %s: nothing to write DNS records for; add a ServiceDNSRecord named after a FederatedService of the input, with its Domain (README: \"Multi-cluster DNS for ExternalDNS\")", strings.Join(input, ", "))
	}
	all, err := clients.Of(r.Federation)
	if err != nil {
		return err
	}
	cluster, err := o.DNS.DNSCluster(r.Set)
	if err != nil {
		return err
	}
	target, err := cmdutil.OpenDNS(r.Federation, cluster, clients)
	if err != nil {
		return err
	}
	res, err := o.DNS.ComputeDNS(ctx, o.IO, r, all, target, o.Timeout)
	if err != nil {
		return err
	}
	if o.Why {
		dns.WriteWhy(o.IO.Out, res)
	} else if err := Print(o.IO.Out, res, o.Output); err != nil {
		return err
	}
	if len(res.Unreachable) > 0 {
		return &cmdutil.PartialError{Failed: res.Unreachable}
	}
	return nil
}

// Print writes the DNSEndpoints as a YAML stream or a JSON List.
func Print(w io.Writer, res *dns.Result, output string) error {
	if output == "json" {
		items := make([]any, len(res.Records))
		for i, r := range res.Records {
			items[i] = r.Object
		}
		return printers.JSON(w, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	}
	for _, r := range res.Records {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
		if err := printers.YAML(w, r.Object); err != nil {
			return err
		}
	}
	return nil
}
