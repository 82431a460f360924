package cmdutil

import (
	"bytes"
	"errors"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDryRunFlag parses --dry-run as kubectl does: the flag as users type
// it, through cobra, to the strategy and the warning (issue 11: a bool
// --dry-run rejected --dry-run=client, a string one rejected bare --dry-run).
func TestDryRunFlag(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    string
		warning bool
		wantErr string
	}{
		{name: "no flag is none", args: nil, want: DryRunNone},
		{name: "client", args: []string{"--dry-run=client"}, want: DryRunClient},
		{name: "server", args: []string{"--dry-run=server"}, want: DryRunServer},
		{name: "none", args: []string{"--dry-run=none"}, want: DryRunNone},
		{name: "a bare --dry-run is client, deprecated", args: []string{"--dry-run"}, want: DryRunClient, warning: true},
		{name: "a bare --dry-run before an argument does not take it", args: []string{"--dry-run", "ARG"}, want: DryRunClient, warning: true},
		{name: "true is client, deprecated", args: []string{"--dry-run=true"}, want: DryRunClient, warning: true},
		{name: "false is none", args: []string{"--dry-run=false"}, want: DryRunNone},
		{name: "anything else is a usage error listing the values", args: []string{"--dry-run=yes"}, wantErr: `invalid --dry-run value "yes": must be "none", "client" or "server"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var raw string
			var gotArgs []string
			cmd := &cobra.Command{Use: "x", RunE: func(_ *cobra.Command, args []string) error { gotArgs = args; return nil }}
			AddDryRunFlag(cmd, &raw, "usage")
			cmd.SetArgs(tt.args)
			require.NoError(t, cmd.Execute())
			var warnings bytes.Buffer
			got, err := ParseDryRun(&warnings, raw)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var flagErr *FlagError
				assert.True(t, errors.As(err, &flagErr), "a usage error: exit 2")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if tt.warning {
				assert.Equal(t, "warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n", warnings.String())
			} else {
				assert.Empty(t, warnings.String())
			}
			if len(tt.args) == 2 {
				assert.Equal(t, []string{"ARG"}, gotArgs)
			}
		})
	}
}
