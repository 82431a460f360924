package delete

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

func TestNewCmdDelete(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    DeleteOptions
		wantErr string
	}{
		{name: "defaults", args: []string{"-f", "d"},
			want: DeleteOptions{Filenames: []string{"d"}, Namespace: "default", Cascade: "background", DryRun: "none", Concurrency: 8, Timeout: 30 * time.Second, QPS: 200, Burst: 400}},
		{name: "every flag", args: []string{"-R", "-f", "d", "--cluster", "c1", "--cascade", "foreground", "--dry-run=server", "--concurrency", "2", "--timeout", "1m", "-o", "json"},
			want: DeleteOptions{Filenames: []string{"d"}, Recursive: true, Clusters: []string{"c1"}, Namespace: "default", Cascade: "foreground", DryRun: "server", Concurrency: 2, Timeout: time.Minute, QPS: 200, Burst: 400, Output: "json"}},
		{name: "a kustomization and a selector", args: []string{"-k", "overlay", "-l", "app=web"},
			want: DeleteOptions{Kustomize: "overlay", Selector: "app=web", Namespace: "default", Cascade: "background", DryRun: "none", Concurrency: 8, Timeout: 30 * time.Second, QPS: 200, Burst: 400}},
		{name: "no -f", wantErr: "-f is required"},
		{name: "-f and -k", args: []string{"-f", "d", "-k", "k"}, wantErr: "-f and -k cannot be used together"},
		{name: "bad cascade", args: []string{"-f", "d", "--cascade", "true"}, wantErr: `--cascade must be background, foreground or orphan, got "true"`},
		{name: "client dry run, as everywhere", args: []string{"-f", "d", "--dry-run=client"},
			want: DeleteOptions{Filenames: []string{"d"}, Namespace: "default", Cascade: "background", DryRun: "client", Concurrency: 8, Timeout: 30 * time.Second, QPS: 200, Burst: 400}},
		{name: "a bare --dry-run is client", args: []string{"--dry-run", "-f", "d"},
			want: DeleteOptions{Filenames: []string{"d"}, Namespace: "default", Cascade: "background", DryRun: "client", Concurrency: 8, Timeout: 30 * time.Second, QPS: 200, Burst: 400}},
		{name: "an unknown dry run", args: []string{"-f", "d", "--dry-run=all"}, wantErr: `invalid --dry-run value "all": must be "none", "client" or "server"`},
		{name: "zero concurrency", args: []string{"-f", "d", "--concurrency", "0"}, wantErr: "--concurrency must be at least 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *DeleteOptions
			cmd := NewCmdDelete(&cmdutil.Factory{IOStreams: ios}, func(o *DeleteOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				require.ErrorAs(t, err, &fe)
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			got.IO, got.Federation, got.Access, got.NewClient = nil, nil, nil, nil
			assert.Equal(t, tt.want, *got)
		})
	}
}
