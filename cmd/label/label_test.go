package label

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

func TestNewCmdLabel(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    LabelOptions
		wantErr string
	}{
		{
			name: "sets and removals are split",
			args: []string{"cluster", "eu-1", "tier=prod", "region-", "--overwrite"},
			want: LabelOptions{Name: "eu-1", Set: map[string]string{"tier": "prod"}, Remove: []string{"region"}, Overwrite: true, DryRun: "none"},
		},
		{
			name: "an empty value is a value",
			args: []string{"clusters", "eu-1", "tier="},
			want: LabelOptions{Name: "eu-1", Set: map[string]string{"tier": ""}, DryRun: "none"},
		},
		{
			name: "a bare --dry-run is client (kubectl's deprecated spelling)",
			args: []string{"cluster", "eu-1", "--dry-run", "tier=prod"},
			want: LabelOptions{Name: "eu-1", Set: map[string]string{"tier": "prod"}, DryRun: "client"},
		},
		{
			name: "--dry-run=server writes nothing either",
			args: []string{"cluster", "eu-1", "tier=prod", "--dry-run=server"},
			want: LabelOptions{Name: "eu-1", Set: map[string]string{"tier": "prod"}, DryRun: "server"},
		},
		{name: "no changes is a usage error", args: []string{"cluster", "eu-1"}, wantErr: "no label changes given: use KEY=VALUE to set or KEY- to remove, or --list"},
		{name: "a bare word is neither", args: []string{"cluster", "eu-1", "tier"}, wantErr: `invalid label change "tier": use KEY=VALUE to set or KEY- to remove`},
		{name: "set and removed at once", args: []string{"cluster", "eu-1", "a=b", "a-"}, wantErr: `label "a" is both set and removed`},
		{name: "an invalid value", args: []string{"cluster", "eu-1", "a=not valid"}, wantErr: `invalid label value "not valid"`},
		{name: "no resource type", args: []string{}, wantErr: `"label" needs a resource type: cluster`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *LabelOptions
			cmd := NewCmdLabel(&cmdutil.Factory{IOStreams: ios}, func(o *LabelOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				var flagErr *cmdutil.FlagError
				assert.ErrorAs(t, err, &flagErr, "argument problems are usage errors")
				return
			}
			require.NoError(t, err)
			if len(tt.want.Remove) == 0 {
				tt.want.Remove = nil
			}
			assert.Equal(t, tt.want.Name, got.Name)
			assert.Equal(t, tt.want.Set, got.Set)
			assert.Equal(t, tt.want.Remove, got.Remove)
			assert.Equal(t, tt.want.Overwrite, got.Overwrite)
			assert.Equal(t, tt.want.DryRun, got.DryRun)
		})
	}
}

func TestChange(t *testing.T) {
	t.Parallel()
	orig := map[string]string{"a": "1", "b": "2"}
	tests := []struct {
		name        string
		set         map[string]string
		remove      []string
		overwrite   bool
		want        map[string]string
		wantChanged bool
		wantErr     string
	}{
		{name: "adding a label", set: map[string]string{"c": "3"}, want: map[string]string{"a": "1", "b": "2", "c": "3"}, wantChanged: true},
		{name: "setting the same value changes nothing", set: map[string]string{"a": "1"}, want: orig},
		{name: "changing a value needs overwrite", set: map[string]string{"a": "9"}, wantErr: `label "a" already has a value (1), and --overwrite is false`},
		{name: "changing a value with overwrite", set: map[string]string{"a": "9"}, overwrite: true, want: map[string]string{"a": "9", "b": "2"}, wantChanged: true},
		{name: "removing a label", remove: []string{"b"}, want: map[string]string{"a": "1"}, wantChanged: true},
		{name: "removing a missing label changes nothing", remove: []string{"z"}, want: orig},
		{name: "removing every label leaves none", remove: []string{"a", "b"}, want: nil, wantChanged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, changed, err := Change(orig, tt.set, tt.remove, tt.overwrite)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantChanged, changed)
			assert.Equal(t, map[string]string{"a": "1", "b": "2"}, orig, "the input is not modified")
		})
	}
}
