package enable_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/cmd/enable"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

func TestNewCmdEnable(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		want     enable.EnableOptions
		wantErr  string
		wantFlag bool // the error is a usage error
	}{
		{
			name: "TYPE alone resolves through the default member",
			args: []string{"statefulsets"},
			want: enable.EnableOptions{Name: "statefulsets", DryRun: "none", Timeout: 30 * time.Second},
		},
		{
			name: "every flag",
			args: []string{"sts", "--cluster", "eu-1", "--version", "v1", "--dry-run", "--timeout", "5s"},
			want: enable.EnableOptions{Name: "sts", Clusters: []string{"eu-1"}, Version: "v1", DryRun: "client", Timeout: 5 * time.Second},
		},
		{
			name: "-o yaml implies a dry run",
			args: []string{"sts", "-o", "yaml", "--cluster-context", "kind-eu-1"},
			want: enable.EnableOptions{Name: "sts", ClusterContext: "kind-eu-1", Output: "yaml", DryRun: "client", Timeout: 30 * time.Second},
		},
		{
			name: "--dry-run=server writes nothing, as client",
			args: []string{"sts", "--dry-run=server"},
			want: enable.EnableOptions{Name: "sts", DryRun: "server", Timeout: 30 * time.Second},
		},
		{name: "--dry-run=false is none", args: []string{"sts", "--dry-run=false"}, want: enable.EnableOptions{Name: "sts", DryRun: "none", Timeout: 30 * time.Second}},
		{name: "an unknown --dry-run", args: []string{"sts", "--dry-run=all"}, wantErr: `invalid --dry-run value "all": must be "none", "client" or "server"`, wantFlag: true},
		{name: "TYPE is required", args: nil, wantErr: `"enable" needs TYPE, got 0 argument(s)`, wantFlag: true},
		{name: "one TYPE at a time", args: []string{"a", "b"}, wantErr: `"enable" needs TYPE, got 2 argument(s)`, wantFlag: true},
		{name: "an empty TYPE", args: []string{""}, wantErr: "TYPE must not be empty", wantFlag: true},
		{name: "one --cluster", args: []string{"sts", "--cluster", "a", "--cluster", "b"}, wantErr: "--cluster names one member cluster, got 2: a, b", wantFlag: true},
		{
			name: "--cluster or --cluster-context", args: []string{"sts", "--cluster", "a", "--cluster-context", "b"},
			wantErr: "if any flags in the group [cluster cluster-context] are set none of the others can be; [cluster cluster-context] were all set",
		},
		{
			name: "--version is not a group version", args: []string{"sts", "--version", "apps/v1"},
			wantErr: `--version is a version such as v1 or v1beta1, got "apps/v1"; name the group in TYPE (<plural>.<group>)`, wantFlag: true,
		},
		{name: "only yaml output", args: []string{"sts", "-o", "json"}, wantErr: `--output must be one of yaml, got "json"`, wantFlag: true},
		{name: "a positive timeout", args: []string{"sts", "--timeout", "0s"}, wantErr: "--timeout must be positive, got 0s", wantFlag: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *enable.EnableOptions
			cmd := enable.NewCmdEnable(&cmdutil.Factory{IOStreams: ios}, func(o *enable.EnableOptions) error {
				got = o
				return nil
			})
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var flagErr *cmdutil.FlagError
				assert.Equal(t, tt.wantFlag, errors.As(err, &flagErr), "usage error")
				return
			}
			require.NoError(t, err)
			got.IO, got.Federation, got.Access = nil, nil, nil
			assert.Equal(t, tt.want, *got)
		})
	}
}
