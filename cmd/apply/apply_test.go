package apply

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

func TestNewCmdApply(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    ApplyOptions
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"-f", "dir"},
			want: ApplyOptions{Filenames: []string{"dir"}, Namespace: "default", DryRun: "none", FieldManager: "fedctl", Concurrency: 8, Timeout: 30 * time.Second, MaxDeletions: 100},
		},
		{
			name: "pruning an ApplySet",
			args: []string{"-f", "dir", "--prune", "--applyset", "configmaps/shop", "-n", "shop", "--max-deletions", "-1"},
			want: ApplyOptions{Filenames: []string{"dir"}, Namespace: "shop", DryRun: "none", FieldManager: "fedctl", Concurrency: 8, Timeout: 30 * time.Second,
				Prune: true, ApplySet: "configmaps/shop", MaxDeletions: -1},
		},
		{
			name: "every flag",
			args: []string{"-R", "-f", "a", "-f", "b", "--cluster", "c1", "--cluster", "c2", "-n", "shop", "--dry-run=server", "--field-manager", "ci",
				"--force-conflicts", "--adopt", "--concurrency", "2", "--timeout", "5s", "-o", "json"},
			want: ApplyOptions{Filenames: []string{"a", "b"}, Recursive: true, Clusters: []string{"c1", "c2"}, Namespace: "shop", DryRun: "server", FieldManager: "ci",
				ForceConflicts: true, Adopt: true, Concurrency: 2, Timeout: 5 * time.Second, Output: "json", MaxDeletions: 100},
		},
		{name: "no -f", args: nil, wantErr: "-f is required"},
		{name: "bad dry run", args: []string{"-f", "d", "--dry-run=yes"}, wantErr: `invalid --dry-run value "yes": must be "none", "client" or "server"`},
		{name: "-f and -k", args: []string{"-f", "d", "-k", "k"}, wantErr: "-f and -k cannot be used together"},
		{name: "prune with a selector", args: []string{"-k", "k", "-l", "app=web", "--prune", "--applyset", "shop"},
			wantErr: "--prune cannot be used with -l app=web: pruning deletes the objects of the ApplySet whose federated objects are not in the input, and with -l every unselected one would look gone; run --prune without -l"},
		{name: "zero concurrency", args: []string{"-f", "d", "--concurrency", "0"}, wantErr: "--concurrency must be at least 1, got 0"},
		{name: "zero timeout", args: []string{"-f", "d", "--timeout", "0s"}, wantErr: "--timeout must be positive, got 0s"},
		{name: "bad output", args: []string{"-f", "d", "-o", "yaml"}, wantErr: `--output must be json or name, got "yaml"`},
		{name: "empty field manager", args: []string{"-f", "d", "--field-manager="}, wantErr: "--field-manager must not be empty"},
		{name: "prune without an ApplySet", args: []string{"-f", "d", "--prune"}, wantErr: "--prune needs --applyset NAME: fedctl prunes only the objects of an ApplySet"},
		{name: "an ApplySet without prune", args: []string{"-f", "d", "--applyset", "shop"}, wantErr: "--applyset needs --prune"},
		{name: "an ApplySet parent of another kind", args: []string{"-f", "d", "--prune", "--applyset", "deployments/shop"},
			wantErr: `--applyset "deployments/shop": the parent must be secrets/NAME (the default) or configmaps/NAME`},
		{name: "max deletions below -1", args: []string{"-f", "d", "--max-deletions", "-2"}, wantErr: "--max-deletions must be -1 (no limit) or more, got -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ApplyOptions
			cmd := NewCmdApply(&cmdutil.Factory{IOStreams: ios}, func(o *ApplyOptions) error { got = o; return nil })
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
			assert.Equal(t, tt.want.Filenames, got.Filenames)
			assert.Equal(t, tt.want.Recursive, got.Recursive)
			assert.Equal(t, tt.want.Clusters, got.Clusters)
			assert.Equal(t, tt.want.Namespace, got.Namespace)
			assert.Equal(t, tt.want.DryRun, got.DryRun)
			assert.Equal(t, tt.want.FieldManager, got.FieldManager)
			assert.Equal(t, tt.want.ForceConflicts, got.ForceConflicts)
			assert.Equal(t, tt.want.Adopt, got.Adopt)
			assert.Equal(t, tt.want.Concurrency, got.Concurrency)
			assert.Equal(t, tt.want.Timeout, got.Timeout)
			assert.Equal(t, tt.want.Output, got.Output)
			assert.Equal(t, tt.want.Prune, got.Prune)
			assert.Equal(t, tt.want.ApplySet, got.ApplySet)
			assert.Equal(t, tt.want.MaxDeletions, got.MaxDeletions)
		})
	}
}

// TestApplyRunInputErrors: a broken input stops apply before any member
// is reached (no Client is even created).
func TestApplyRunInputErrors(t *testing.T) {
	dir := t.TempDir()
	// placed (its namespace is federated): wrong overrides of an object
	// placed nowhere are only a warning, as KubeFed never reads them
	write(t, dir, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: cluster1
    clusterOverrides:
    - path: /metadata/name
      value: other
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
`)
	ios, _, _, _ := iostreams.Test()
	fed := federationOf()
	called := false
	o := &ApplyOptions{
		IO: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(dir, "f.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{}, nil },
		NewClient: func(members.Access, members.Member) (members.Client, error) {
			called = true
			return nil, errors.New("unreachable")
		},
		Filenames: []string{dir}, Namespace: "default", DryRun: "none", FieldManager: "fedctl", Concurrency: 1, Timeout: time.Second,
	}
	err := o.Run(context.Background())
	require.Error(t, err)
	assert.ErrorContains(t, err, "/metadata/name")
	assert.False(t, called, "no member is reached")
}

// TestApplyRunExitCodes: every member failing is an error (exit 1); some
// failing is a PartialError (exit 3).
func TestApplyRunExitCodes(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, namespaceDoc("codes"))
	for _, tt := range []struct {
		name    string
		failing map[string]bool
		check   func(t *testing.T, err error)
	}{
		{"every member failing is an error", map[string]bool{"cluster1": true, "cluster2": true, "cluster3": true}, func(t *testing.T, err error) {
			require.EqualError(t, err, "every member cluster failed: cluster1, cluster2, cluster3")
		}},
		{"some members failing is partial", map[string]bool{"cluster2": true}, func(t *testing.T, err error) {
			assertPartial(t, err, "cluster2")
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, errOut := iostreams.Test()
			fed := federationOf()
			o := &ApplyOptions{
				IO: ios,
				Federation: func() (*members.File, error) {
					return &members.File{Path: filepath.Join(dir, "f.yaml"), Federation: fed}, nil
				},
				Access:    func() (members.Access, error) { return members.Access{}, nil },
				Filenames: []string{dir}, Namespace: "default", DryRun: "none", FieldManager: "fedctl", Concurrency: 3, Timeout: time.Second,
			}
			o.NewClient = func(_ members.Access, m members.Member) (members.Client, error) {
				if tt.failing[m.Name] {
					return nil, errors.New("no route to host")
				}
				return okClient(), nil
			}
			tt.check(t, o.Run(context.Background()))
			assert.Empty(t, out.String())
			assert.Contains(t, errOut.String(), "✗ cluster cluster2: no route to host\n")
		})
	}
}

// TestApplySummaryColour: the summary on stderr is coloured only on a
// terminal, never with NO_COLOR, and stdout never.
func TestApplySummaryColour(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, namespaceDoc("colour"))
	for _, tt := range []struct {
		tty     bool
		noColor string
		want    bool
	}{
		{tty: false, want: false},
		{tty: true, want: true},
		{tty: true, noColor: "1", want: false},
	} {
		t.Setenv("NO_COLOR", tt.noColor)
		ios, _, out, errOut := iostreams.Test()
		ios.SetTTY(tt.tty)
		fed := federationOf()
		o := &ApplyOptions{
			IO: ios,
			Federation: func() (*members.File, error) {
				return &members.File{Path: filepath.Join(dir, "f.yaml"), Federation: fed}, nil
			},
			Access:    func() (members.Access, error) { return members.Access{}, nil },
			NewClient: func(members.Access, members.Member) (members.Client, error) { return okClient(), nil },
			Output:    "json", Filenames: []string{dir}, Namespace: "default", DryRun: "none", FieldManager: "fedctl", Concurrency: 3, Timeout: time.Second,
		}
		require.NoError(t, o.Run(context.Background()))
		assert.Contains(t, errOut.String(), "cluster cluster1: 1 created")
		assert.Equal(t, tt.want, strings.Contains(errOut.String(), "\x1b["), "tty %v NO_COLOR=%q:\n%q", tt.tty, tt.noColor, errOut.String())
		assert.NotContains(t, out.String(), "\x1b[", "no colour in data on stdout")
	}
}

// TestApplyTimeFlags: --timeout is per request and --request-timeout is
// the same flag (kubectl's name); --deadline bounds the run; --qps and
// --burst set the limit of members without API Priority and Fairness.
func TestApplyTimeFlags(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		want    ApplyOptions
		wantErr string
	}{
		{args: []string{"-f", "d"}, want: ApplyOptions{Timeout: 30 * time.Second, QPS: 200, Burst: 400}},
		{args: []string{"-f", "d", "--request-timeout", "5s", "--deadline", "2m", "--qps", "20", "--burst", "30"},
			want: ApplyOptions{Timeout: 5 * time.Second, Deadline: 2 * time.Minute, QPS: 20, Burst: 30}},
		{args: []string{"-f", "d", "--timeout", "7s"}, want: ApplyOptions{Timeout: 7 * time.Second, QPS: 200, Burst: 400}},
		{args: []string{"-f", "d", "--deadline", "-1s"}, wantErr: "--deadline must be positive, got -1s"},
		{args: []string{"-f", "d", "--qps", "0"}, wantErr: "--qps must be positive, got 0"},
		{args: []string{"-f", "d", "--burst", "0"}, wantErr: "--burst must be at least 1, got 0"},
		{args: []string{"-f", "d", "-o", "name"}, want: ApplyOptions{Timeout: 30 * time.Second, QPS: 200, Burst: 400, Output: "name"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *ApplyOptions
			cmd := NewCmdApply(&cmdutil.Factory{IOStreams: ios}, func(o *ApplyOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.Timeout, got.Timeout)
			assert.Equal(t, tt.want.Deadline, got.Deadline)
			assert.Equal(t, tt.want.QPS, got.QPS)
			assert.Equal(t, tt.want.Burst, got.Burst)
			assert.Equal(t, tt.want.Output, got.Output)
		})
	}
}
