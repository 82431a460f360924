// Package cmd wires fedctl's commands: flags, arguments, help text and exit
// codes. The work itself happens in pkg/.
package cmd

import (
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/fedctl/fedctl/cmd/apply"
	"github.com/fedctl/fedctl/cmd/convert"
	"github.com/fedctl/fedctl/cmd/cordon"
	deletecmd "github.com/fedctl/fedctl/cmd/delete"
	diffcmd "github.com/fedctl/fedctl/cmd/diff"
	"github.com/fedctl/fedctl/cmd/disable"
	dnscmd "github.com/fedctl/fedctl/cmd/dns"
	"github.com/fedctl/fedctl/cmd/drain"
	"github.com/fedctl/fedctl/cmd/enable"
	"github.com/fedctl/fedctl/cmd/explain"
	"github.com/fedctl/fedctl/cmd/federate"
	"github.com/fedctl/fedctl/cmd/get"
	"github.com/fedctl/fedctl/cmd/join"
	"github.com/fedctl/fedctl/cmd/label"
	"github.com/fedctl/fedctl/cmd/render"
	statuscmd "github.com/fedctl/fedctl/cmd/status"
	"github.com/fedctl/fedctl/cmd/unjoin"
	versioncmd "github.com/fedctl/fedctl/cmd/version"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

// annotationStandalone marks commands that must work even when the
// federation file is missing or broken, such as version and completion.
const annotationStandalone = "fedctl.io/standalone"

// NewRootCmd builds the command tree. argv0 is the program name, so that
// installed as kubectl-fed the help reads "kubectl fed".
func NewRootCmd(ios *iostreams.IOStreams, argv0 string) *cobra.Command {
	v := viper.New()
	v.SetEnvPrefix("FEDCTL")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	v.SetDefault(cmdutil.FlagColor, "auto")
	f := cmdutil.NewFactory(ios, v, buildInfo())

	root := &cobra.Command{
		Use:   "fedctl",
		Short: "Ship one set of Kubernetes manifests to many clusters",
		Long: `fedctl propagates KubeFed-style federated objects (Federated<Kind>,
FederatedNamespace, ReplicaSchedulingPreference) to member clusters, entirely
client side: no host cluster, no controllers and no CRDs anywhere.

Member clusters are kubeconfig contexts listed in the federation file
(--config, FEDCTL_CONFIG, default $XDG_CONFIG_HOME/fedctl/config.yaml).

Exit codes: 0 success, 1 error, 2 usage error, 3 some member clusters failed.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			f.Context = cmd.Context()
			if isStandalone(cmd) {
				// No federation file here: flags and FEDCTL_COLOR only.
				_ = ios.SetColorMode(v.GetString(cmdutil.FlagColor))
				routeClientLogs(ios.ErrOut, v.GetInt(cmdutil.FlagVerbosity))
				return nil
			}
			s, err := f.Settings()
			if err != nil {
				return err
			}
			routeClientLogs(ios.ErrOut, s.Verbosity)
			return cmdutil.FlagErrorWrap(ios.SetColorMode(s.Color))
		},
	}
	if name := filepath.Base(argv0); strings.HasPrefix(name, "kubectl-fed") {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl fed"}
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagErrorWrap(err) })

	pf := root.PersistentFlags()
	pf.String(cmdutil.FlagKubeconfig, "", "Path to the kubeconfig file for members that name none (default: KUBECONFIG, then ~/.kube/config)")
	pf.String(cmdutil.FlagConfig, "", "Path to the federation file (default $XDG_CONFIG_HOME/fedctl/config.yaml)")
	pf.String(cmdutil.FlagColor, "auto", "When to colour output: auto, always or never; NO_COLOR turns it off")
	pf.IntP(cmdutil.FlagVerbosity, "v", 0, "Log verbosity: 1 names every object apply and delete handle, 4 adds timings per member, 6 logs every request sent to a member, 8 their bodies (Secret values redacted)")
	pf.String(cmdutil.FlagAs, "", "User to impersonate in every member cluster, as kubectl --as")
	pf.StringSlice(cmdutil.FlagAsGroup, nil, "Group to impersonate in every member cluster (repeatable), as kubectl --as-group")
	pf.String(cmdutil.FlagAsUID, "", "UID to impersonate in every member cluster, as kubectl --as-uid")
	for _, key := range []string{cmdutil.FlagKubeconfig, cmdutil.FlagConfig, cmdutil.FlagColor, cmdutil.FlagVerbosity, cmdutil.FlagAs, cmdutil.FlagAsGroup, cmdutil.FlagAsUID} {
		_ = v.BindPFlag(key, pf.Lookup(key))
	}
	_ = root.RegisterFlagCompletionFunc(cmdutil.FlagColor, cobra.FixedCompletions([]string{"auto", "always", "never"}, cobra.ShellCompDirectiveNoFileComp))

	root.AddGroup(
		&cobra.Group{ID: "objects", Title: "Federated objects:"},
		&cobra.Group{ID: "membership", Title: "Members and types:"},
		&cobra.Group{ID: "other", Title: "Other:"},
	)
	for _, c := range []*cobra.Command{
		render.NewCmdRender(f, nil),
		apply.NewCmdApply(f, nil),
		diffcmd.NewCmdDiff(f, nil),
		deletecmd.NewCmdDelete(f, nil),
		deletecmd.NewCmdRelease(f, nil),
		federate.NewCmdFederate(f, nil),
		convert.NewCmdConvert(f, nil),
		explain.NewCmdExplain(f, nil),
		statuscmd.NewCmdStatus(f, nil),
		dnscmd.NewCmdDNS(f, nil),
	} {
		c.GroupID = "objects"
		root.AddCommand(c)
	}
	for _, c := range []*cobra.Command{
		join.NewCmdJoin(f, nil),
		unjoin.NewCmdUnjoin(f, nil),
		label.NewCmdLabel(f, nil),
		cordon.NewCmdCordon(f, nil),
		cordon.NewCmdUncordon(f, nil),
		drain.NewCmdDrain(f, nil),
		drain.NewCmdMigrate(f, nil),
		get.NewCmdGet(f, nil),
		enable.NewCmdEnable(f, nil),
		disable.NewCmdDisable(f, nil),
	} {
		c.GroupID = "membership"
		root.AddCommand(c)
	}
	// -n completes with a member's namespaces wherever it is a flag.
	for _, c := range root.Commands() {
		cmdutil.RegisterNamespaceCompletion(f, c)
	}
	vc := versioncmd.NewCmdVersion(f, nil)
	vc.GroupID = "other"
	vc.Annotations = map[string]string{annotationStandalone: "true"}
	root.AddCommand(vc)
	root.SetHelpCommandGroupID("other")
	root.SetCompletionCommandGroupID("other")
	return root
}

// isStandalone reports whether cmd must run without the federation file:
// version, completion and help.
func isStandalone(cmd *cobra.Command) bool {
	for c := cmd; c != nil; c = c.Parent() {
		if c.Annotations[annotationStandalone] == "true" || c.Name() == "completion" || c.Name() == "help" {
			return true
		}
	}
	return false
}
