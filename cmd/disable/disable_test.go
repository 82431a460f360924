package disable_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/cmd/disable"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func TestNewCmdDisable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    disable.DisableOptions
		wantErr string
	}{
		{name: "TYPE", args: []string{"jobs"}, want: disable.DisableOptions{Name: "jobs", DryRun: "none"}},
		{name: "--force and --dry-run", args: []string{"jobs", "--force", "--dry-run"}, want: disable.DisableOptions{Name: "jobs", Force: true, DryRun: "client"}},
		{name: "--dry-run=client", args: []string{"jobs", "--dry-run=client"}, want: disable.DisableOptions{Name: "jobs", DryRun: "client"}},
		{name: "an unknown --dry-run", args: []string{"jobs", "--dry-run=1"}, wantErr: `invalid --dry-run value "1": must be "none", "client" or "server"`},
		{name: "TYPE is required", wantErr: `"disable" needs TYPE, got 0 argument(s)`},
		{name: "an empty TYPE", args: []string{" "}, wantErr: "TYPE must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := iostreams.Test()
			var got *disable.DisableOptions
			cmd := disable.NewCmdDisable(&cmdutil.Factory{IOStreams: ios}, func(o *disable.DisableOptions) error {
				got = o
				return nil
			})
			err := execute(cmd, tt.args...)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var flagErr *cmdutil.FlagError
				assert.True(t, errors.As(err, &flagErr), "a usage error")
				return
			}
			require.NoError(t, err)
			got.IO, got.Federation = nil, nil
			assert.Equal(t, tt.want, *got)
		})
	}
}

func execute(cmd *cobra.Command, args ...string) error {
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	return cmd.Execute()
}

var statefulSets = typeconfig.Type{Group: "apps", Version: "v1", Kind: "StatefulSet", Plural: "statefulsets", Scope: typeconfig.Namespaced}

// The members point at nothing: disable never asks a cluster.
func writeFederation(t *testing.T, types []typeconfig.Type, disabled []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "federation.yaml")
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "eu-1", Context: "no-such-context", Kubeconfig: "/nonexistent"}, false))
	fed.Types, fed.DisabledTypes = types, disabled
	f, err := members.Load(path)
	require.NoError(t, err)
	require.NoError(t, f.Save(fed))
	return path
}

func TestDisableRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		types        []typeconfig.Type
		disabled     []string
		opts         disable.DisableOptions
		wantErrOut   string
		wantErr      string
		wantTypes    []typeconfig.Type
		wantDisabled []string
		unchanged    bool // the file is not rewritten
	}{
		{
			name:  "an enabled type is removed",
			types: []typeconfig.Type{statefulSets},
			opts:  disable.DisableOptions{Name: "StatefulSet"},
			wantErrOut: "✓ federatedtypeconfig/statefulsets.apps disabled\n" +
				"fedctl no longer reads FederatedStatefulSet objects: an input that holds one is refused (render, apply, delete), so delete their member objects first (fedctl delete -f) if they should go; StatefulSet objects it already propagated stay in the member clusters, neither updated nor deleted\n",
			wantTypes: []typeconfig.Type{},
		},
		{
			name:      "a default type needs --force",
			opts:      disable.DisableOptions{Name: "svc"},
			wantErr:   "cannot disable svc: services is one of KubeFed's default types; disabling it makes fedctl stop rendering FederatedService objects (Service objects already propagated stay in the member clusters); pass --force to disable it anyway",
			unchanged: true,
		},
		{
			name:     "a default type is disabled with --force",
			disabled: []string{"secrets"},
			opts:     disable.DisableOptions{Name: "svc", Force: true},
			wantErrOut: "✓ federatedtypeconfig/services disabled (a default type, now listed in disabledTypes)\n" +
				"fedctl no longer reads FederatedService objects: an input that holds one is refused (render, apply, delete), so delete their member objects first (fedctl delete -f) if they should go; Service objects it already propagated stay in the member clusters, neither updated nor deleted\n",
			wantTypes:    []typeconfig.Type{},
			wantDisabled: []string{"secrets", "services"},
		},
		{
			name:       "a disabled default is disabled already",
			disabled:   []string{"services"},
			opts:       disable.DisableOptions{Name: "Service", Force: true},
			wantErrOut: "federatedtypeconfig/services is already disabled; nothing to change\n",
			unchanged:  true,
		},
		{
			name:       "--dry-run writes nothing",
			types:      []typeconfig.Type{statefulSets},
			opts:       disable.DisableOptions{Name: "statefulsets.apps", DryRun: "client"},
			wantErrOut: "! federatedtypeconfig/statefulsets.apps would be disabled; dry run, PATH not written\n",
			unchanged:  true,
		},
		{
			name:      "an unknown type lists those in effect",
			opts:      disable.DisableOptions{Name: "statefulsets"},
			wantErr:   `cannot disable statefulsets: no federated type named "statefulsets" (types in effect: clusterroles.rbac.authorization.k8s.io, configmaps, deployments.apps, ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets, serviceaccounts, services)`,
			unchanged: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFederation(t, tt.types, tt.disabled)
			before, err := os.ReadFile(path)
			require.NoError(t, err)
			ios, _, out, errOut := iostreams.Test()
			opts := tt.opts
			opts.IO = ios
			opts.Federation = func() (*members.File, error) { return members.Load(path) }
			err = opts.Run()
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			assert.Empty(t, out.String())
			assert.Equal(t, replacePath(tt.wantErrOut, path), errOut.String())
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			if tt.unchanged {
				assert.Equal(t, string(before), string(after))
				return
			}
			f, err := members.Load(path)
			require.NoError(t, err)
			assert.Equal(t, tt.wantTypes, f.Federation.Types)
			assert.Equal(t, tt.wantDisabled, f.Federation.DisabledTypes)
		})
	}
}

func replacePath(s, path string) string {
	return strings.ReplaceAll(s, "PATH", path)
}

func TestDisableCompletesTypesInEffect(t *testing.T) {
	t.Parallel()
	path := writeFederation(t, []typeconfig.Type{statefulSets}, []string{"secrets"})
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(path) }}
	cmd := disable.NewCmdDisable(f, nil)
	got, directive := cmd.ValidArgsFunction(cmd, nil, "s")
	assert.Equal(t, []cobra.Completion{"serviceaccounts", "services", "statefulsets.apps"}, got)
	assert.Equal(t, cobra.ShellCompDirectiveNoFileComp, directive)
}
