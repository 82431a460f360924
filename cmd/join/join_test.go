package join

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

func TestNewCmdJoin(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    JoinOptions
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"eu-1"},
			want: JoinOptions{Name: "eu-1", DryRun: "none", Timeout: 10 * time.Second},
		},
		{
			name: "a context equal to the name is the default and not recorded",
			args: []string{"eu-1", "--cluster-context", "eu-1", "-l", "a=b", "--label", "c=d", "--overwrite", "--timeout", "3s"},
			want: JoinOptions{Name: "eu-1", Labels: map[string]string{"a": "b", "c": "d"}, Overwrite: true, DryRun: "none", Timeout: 3 * time.Second},
		},
		{
			name: "dry run prints YAML unless told otherwise",
			args: []string{"eu-1", "--cluster-context", "kind-eu-1", "--dry-run"},
			want: JoinOptions{Name: "eu-1", ClusterContext: "kind-eu-1", DryRun: "client", Output: "yaml", Timeout: 10 * time.Second},
		},
		{
			name: "--dry-run=server writes nothing either, and prints YAML",
			args: []string{"eu-1", "--dry-run=server"},
			want: JoinOptions{Name: "eu-1", DryRun: "server", Output: "yaml", Timeout: 10 * time.Second},
		},
		{
			name: "--dry-run=client, as kubectl spells it (a bool flag once rejected it)",
			args: []string{"eu-1", "--dry-run=client", "-o", "json"},
			want: JoinOptions{Name: "eu-1", DryRun: "client", Output: "json", Timeout: 10 * time.Second},
		},
		{name: "an unknown --dry-run", args: []string{"eu-1", "--dry-run=maybe"}, wantErr: `invalid --dry-run value "maybe": must be "none", "client" or "server"`},
		{name: "two names", args: []string{"a", "b"}, wantErr: `"join" needs NAME, got 2 argument(s)`},
		{name: "an invalid name", args: []string{"EU_1"}, wantErr: `invalid cluster name "EU_1"`},
		{name: "a label twice", args: []string{"a", "-l", "x=1", "-l", "x=2"}, wantErr: `--label x=2: label "x" given twice`},
		{name: "an invalid label key", args: []string{"a", "-l", "-x=1"}, wantErr: `--label -x=1: invalid label key "-x"`},
		{name: "an unknown output", args: []string{"a", "-o", "wide"}, wantErr: `--output must be one of yaml, json, name, got "wide"`},
		{name: "a zero timeout", args: []string{"a", "--timeout", "0s"}, wantErr: `--timeout must be positive, got 0s`},
		{
			name: "--from-capi CLUSTER after NAME, as kubectl's --flag value",
			args: []string{"web", "--from-capi", "web-1", "--management-context", "mgmt", "-n", "capi"},
			want: JoinOptions{Name: "web", FromCAPI: true, CAPICluster: "web-1", ManagementContext: "mgmt", Namespace: "capi", DryRun: "none", Timeout: 10 * time.Second},
		},
		{
			name: "--from-capi CLUSTER before NAME: the argument right after the flag is the Cluster",
			args: []string{"--from-capi", "web-1", "web", "--management-context", "mgmt"},
			want: JoinOptions{Name: "web", FromCAPI: true, CAPICluster: "web-1", ManagementContext: "mgmt", DryRun: "none", Timeout: 10 * time.Second},
		},
		{
			name: "--from-capi=CLUSTER",
			args: []string{"web", "--from-capi=web-1", "--management-context", "mgmt", "--copy-labels", "-l", "a=b"},
			want: JoinOptions{Name: "web", FromCAPI: true, CAPICluster: "web-1", ManagementContext: "mgmt", CopyLabels: true, Labels: map[string]string{"a": "b"}, DryRun: "none", Timeout: 10 * time.Second},
		},
		{
			name: "a bare --from-capi joins NAME's Cluster",
			args: []string{"web-1", "--from-capi", "--management-context", "mgmt"},
			want: JoinOptions{Name: "web-1", FromCAPI: true, CAPICluster: "web-1", ManagementContext: "mgmt", DryRun: "none", Timeout: 10 * time.Second},
		},
		{
			name: "with --all, -l is the selector, as kubectl's -l",
			args: []string{"--all", "--from-capi", "--management-context", "mgmt", "-l", "env=prod", "-l", "tier in (web,api)", "--selector", "team=a", "-A"},
			want: JoinOptions{All: true, FromCAPI: true, ManagementContext: "mgmt", AllNamespaces: true, Selector: "team=a,env=prod,tier in (web,api)", DryRun: "none", Timeout: 10 * time.Second},
		},
		{name: "--from-capi needs the management context", args: []string{"web", "--from-capi"},
			wantErr: `--from-capi needs --management-context MGMT, the kubeconfig context of the Cluster API management cluster`},
		{name: "--management-context needs --from-capi", args: []string{"web", "--management-context", "mgmt"},
			wantErr: `--management-context goes with --from-capi, which joins a Cluster API cluster`},
		{name: "--all needs --from-capi", args: []string{"--all"}, wantErr: `--all goes with --from-capi, which joins a Cluster API cluster`},
		{name: "-A needs --all", args: []string{"web", "--from-capi", "--management-context", "mgmt", "-A"}, wantErr: `-A goes with --all, which joins every Cluster that matches`},
		{name: "--all takes no NAME", args: []string{"web", "--all", "--from-capi", "--management-context", "mgmt"},
			wantErr: `--all joins every Cluster under its own name; it takes no NAME, got "web"`},
		{name: "a context or Cluster API, not both", args: []string{"web", "--from-capi", "--cluster-context", "kind-web"},
			wantErr: `if any flags in the group [cluster-context from-capi] are set none of the others can be`},
		{name: "-n or -A", args: []string{"--all", "--from-capi", "--management-context", "mgmt", "-n", "capi", "-A"},
			wantErr: `if any flags in the group [namespace all-namespaces] are set none of the others can be`},
		{name: "two arguments without --from-capi", args: []string{"a", "b"}, wantErr: `"join" needs NAME, got 2 argument(s)`},
		{name: "a bare --from-capi after both arguments names no Cluster", args: []string{"a", "b", "--from-capi", "--management-context", "mgmt"},
			wantErr: `"join" needs NAME, got 2 argument(s)`},
		{name: "an invalid selector", args: []string{"--all", "--from-capi", "--management-context", "mgmt", "-l", "env in ("},
			wantErr: `--selector "env in (": `},
		{name: "an invalid namespace", args: []string{"web", "--from-capi", "--management-context", "mgmt", "-n", "Capi"},
			wantErr: `-n "Capi": a lowercase RFC 1123 label`},
		{name: "an invalid Cluster name", args: []string{"web", "--from-capi=Web_1", "--management-context", "mgmt"},
			wantErr: `--from-capi "Web_1" is not a Cluster name: a lowercase RFC 1123 subdomain`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *JoinOptions
			cmd := NewCmdJoin(&cmdutil.Factory{IOStreams: ios}, func(o *JoinOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				if !strings.HasPrefix(err.Error(), "if any flags in the group") { // cobra's own, a usage error to cmd.Main too
					var flagErr *cmdutil.FlagError
					assert.ErrorAs(t, err, &flagErr)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.Name, got.Name)
			assert.Equal(t, tt.want.ClusterContext, got.ClusterContext)
			assert.Equal(t, tt.want.Labels, got.Labels)
			assert.Equal(t, tt.want.Overwrite, got.Overwrite)
			assert.Equal(t, tt.want.DryRun, got.DryRun)
			assert.Equal(t, tt.want.Output, got.Output)
			assert.Equal(t, tt.want.Timeout, got.Timeout)
			assert.Equal(t, tt.want.FromCAPI, got.FromCAPI)
			assert.Equal(t, tt.want.CAPICluster, got.CAPICluster)
			assert.Equal(t, tt.want.ManagementContext, got.ManagementContext)
			assert.Equal(t, tt.want.Namespace, got.Namespace)
			assert.Equal(t, tt.want.All, got.All)
			assert.Equal(t, tt.want.AllNamespaces, got.AllNamespaces)
			assert.Equal(t, tt.want.Selector, got.Selector)
			assert.Equal(t, tt.want.CopyLabels, got.CopyLabels)
		})
	}
}

func TestRecordedPath(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	assert.Equal(t, filepath.Join("kube", "eu.yaml"), recordedPath(filepath.Join(base, "kube", "eu.yaml"), base), "below the federation file: relative")
	other := filepath.Join(filepath.Dir(base), "elsewhere", "kubeconfig")
	assert.Equal(t, other, recordedPath(other, base), "elsewhere: absolute")
	abs, err := filepath.Abs("relative/kubeconfig")
	require.NoError(t, err)
	assert.Equal(t, abs, recordedPath("relative/kubeconfig", base), "relative to the working directory becomes absolute")
}
