package join

import (
	"path/filepath"
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
				var flagErr *cmdutil.FlagError
				assert.ErrorAs(t, err, &flagErr)
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
