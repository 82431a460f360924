package diff

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

func TestNewCmdDiff(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		want    DiffOptions
		wantErr string
	}{
		{
			name: "defaults",
			args: []string{"-f", "dir"},
			want: DiffOptions{Filenames: []string{"dir"}, Namespace: "default", FieldManager: "fedctl", Concurrency: 8, Timeout: 30 * time.Second,
				QPS: members.DefaultQPS, Burst: members.DefaultBurst, DNS: cmdutil.DNSFlags{WeightKey: dns.DefaultWeightKey}},
		},
		{
			name: "every flag",
			args: []string{"-R", "-f", "a", "--cluster", "c1", "-n", "shop", "--field-manager", "ci", "--force-conflicts", "--adopt",
				"--concurrency", "2", "--request-timeout", "5s", "--deadline", "1m", "--qps", "7", "--burst", "9", "--prune", "--applyset", "configmaps/shop",
				"--dns-context", "dns", "--dns-weights", "replicas", "--dns-weight-key", "w", "--dns-withdraw-unreachable"},
			want: DiffOptions{Filenames: []string{"a"}, Recursive: true, Clusters: []string{"c1"}, Namespace: "shop", FieldManager: "ci", ForceConflicts: true, Adopt: true,
				Concurrency: 2, Timeout: 5 * time.Second, Deadline: time.Minute, QPS: 7, Burst: 9, Prune: true, ApplySet: "configmaps/shop", NamespaceGiven: true,
				DNS: cmdutil.DNSFlags{Context: "dns", Weights: "replicas", WeightKey: "w", WithdrawUnreachable: true}},
		},
		{name: "no -f", args: nil, wantErr: "-f is required"},
		{name: "-f and -k", args: []string{"-f", "d", "-k", "k"}, wantErr: "-f and -k cannot be used together"},
		{name: "prune with a selector", args: []string{"-f", "d", "-l", "app", "--prune", "--applyset", "shop"}, wantErr: "--prune cannot be used with -l app"},
		{name: "prune without an ApplySet", args: []string{"-f", "d", "--prune"}, wantErr: "--prune needs --applyset NAME"},
		{name: "an ApplySet without prune", args: []string{"-f", "d", "--applyset", "x"}, wantErr: "--applyset needs --prune"},
		{name: "zero concurrency", args: []string{"-f", "d", "--concurrency", "0"}, wantErr: "--concurrency must be at least 1, got 0"},
		{name: "a negative deadline", args: []string{"-f", "d", "--deadline", "-1s"}, wantErr: "--deadline must be positive, got -1s"},
		{name: "zero qps", args: []string{"-f", "d", "--qps", "0"}, wantErr: "--qps must be positive, got 0"},
		{name: "unknown DNS weights", args: []string{"-f", "d", "--dns-weights", "even"}, wantErr: `--dns-weights must be "replicas", got "even"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, _ := iostreams.Test()
			var got *DiffOptions
			cmd := NewCmdDiff(&cmdutil.Factory{IOStreams: ios}, func(o *DiffOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				require.ErrorAs(t, err, &fe, "a usage error exits 2, as every diff error")
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			got.IO, got.Federation, got.Access, got.NewClient, got.Getenv, got.Version = nil, nil, nil, nil, nil, ""
			assert.Equal(t, tt.want, *got)
		})
	}
}

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-diff")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o700))
	return p
}

// TestShowDiff: the diff program comes from FEDCTL_EXTERNAL_DIFF, then
// KUBECTL_EXTERNAL_DIFF (split into command and arguments), then diff -u
// -N; its exit status decides, as in kubectl diff.
func TestShowDiff(t *testing.T) {
	report := &propagate.Report{Clusters: []propagate.ClusterResult{{Cluster: "eu-1"}}}
	for _, tt := range []struct {
		name        string
		env         map[string]string
		wantDiffer  bool
		wantCode    int
		wantOut     string
		wantErrText string
	}{
		{name: "FEDCTL_EXTERNAL_DIFF wins and gets its arguments", env: map[string]string{
			"FEDCTL_EXTERNAL_DIFF":  script(t, `echo "fedctl's $1"; exit 1`) + " --flag",
			"KUBECTL_EXTERNAL_DIFF": script(t, `echo kubectl; exit 0`)}, wantDiffer: true, wantOut: "fedctl's --flag\n"},
		{name: "KUBECTL_EXTERNAL_DIFF next", env: map[string]string{"KUBECTL_EXTERNAL_DIFF": script(t, `echo "kubectl's"; exit 0`)}, wantOut: "kubectl's\n"},
		{name: "an exit status above 1 is an error with that code", env: map[string]string{"FEDCTL_EXTERNAL_DIFF": script(t, `exit 3`)}, wantCode: 3, wantErrText: "failed with exit status 3"},
		{name: "a missing program is an error", env: map[string]string{"FEDCTL_EXTERNAL_DIFF": "/nonexistent/diff"}, wantErrText: `run the diff program "/nonexistent/diff"`},
		{name: "diff -u -N by default: nothing differs", env: map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, out, _ := iostreams.Test()
			o := &DiffOptions{IO: ios, Getenv: func(k string) string { return tt.env[k] }}
			differ, err := o.showDiff(report)
			if tt.wantErrText != "" {
				require.ErrorContains(t, err, tt.wantErrText)
				if tt.wantCode != 0 {
					var exitErr *cmdutil.ExitError
					require.ErrorAs(t, err, &exitErr)
					assert.Equal(t, tt.wantCode, exitErr.Code)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantDiffer, differ)
			assert.Equal(t, tt.wantOut, out.String())
		})
	}
}

// TestFailuresOf: a member the deadline stopped is one line however many
// of its objects were not sent or were cut off in flight (issue 11);
// other failures keep a line each, and a member that failed as a whole
// is its error.
func TestFailuresOf(t *testing.T) {
	deadline := &members.DeadlineError{Flag: "--deadline", D: 3 * time.Second}
	failed := func(name, reason, err string) propagate.ObjectResult {
		return propagate.ObjectResult{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: name, Action: propagate.Failed, Reason: reason, Error: err}
	}
	report := &propagate.Report{Clusters: []propagate.ClusterResult{
		{Cluster: "eu-1", Objects: []propagate.ObjectResult{{Kind: "ConfigMap", Namespace: "shop", Name: "a", Action: propagate.Configured}}},
		{Cluster: "eu-2", Error: "deadline reached (--deadline 3s)"},
		{Cluster: "us-1", Objects: []propagate.ObjectResult{
			{Kind: "ConfigMap", Namespace: "shop", Name: "a", Action: propagate.Configured},
			failed("b", "", "deadline reached (--deadline 3s)"),
			failed("c", "", "get: deadline reached (--deadline 3s)"),
			failed("d", propagate.ReasonDeadlineReached, propagate.NotAttemptedDeadline),
			failed("e", propagate.ReasonDeadlineReached, propagate.NotAttemptedDeadline),
			failed("f", "Invalid", `ConfigMap "f" is invalid`),
		}},
	}}
	assert.Equal(t, []string{
		"cluster eu-2: deadline reached (--deadline 3s)",
		`cluster us-1: ConfigMap shop/f: ConfigMap "f" is invalid`,
		"cluster us-1: deadline reached (--deadline 3s): 4 objects not compared",
	}, failuresOf(report, deadline))
}

// TestCannotCompare: diff's error names the members and the DNS clusters
// that failed, each once and sorted, and "the DNS records" when no DNS
// cluster could be decided.
func TestCannotCompare(t *testing.T) {
	var p dnsProblems
	p.add(nil, "cluster9") // no problem: not named
	p.add(errors.New("stale"), "dns-b", "dns-a")
	p.add(errors.New("again"), "dns-a")
	assert.Equal(t, "cannot compare everything: 3 problem(s) in member cluster(s) eu-2 and DNS cluster(s) dns-a, dns-b",
		cannotCompare([]string{"x", "y", "z"}, []string{"eu-2"}, p.err() != nil, p.clusters).Error())
	assert.EqualError(t, p.err(), "stale\nagain")

	var undecided dnsProblems
	undecided.add(errors.New("nothing says where ExternalDNS runs"))
	assert.Equal(t, "cannot compare everything: 1 problem(s) in the DNS records",
		cannotCompare([]string{"x"}, nil, undecided.err() != nil, undecided.clusters).Error())
	assert.NoError(t, (&dnsProblems{}).err())
}

// TestDiffInterruptedWhileReading: Ctrl-C while -k is built (here a
// remote resource whose server never answers) is "interrupted", exit 2,
// as an interrupt while comparing is, not "context canceled".
func TestDiffInterruptedWhileReading(t *testing.T) {
	requested := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(requested)
		<-r.Context().Done()
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections() // ends the fetch the build is left with
		srv.Close()
	})
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: ["+srv.URL+"/cm.yaml]\n"), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-requested
		cancel()
	}()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load("../../testdata/federation/three-clusters.yaml") }}
	cmd := NewCmdDiff(f, nil)
	cmd.SetArgs([]string{"-k", dir})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(ctx)
	var exitErr *cmdutil.ExitError
	require.ErrorAs(t, err, &exitErr)
	assert.Equal(t, 2, exitErr.Code)
	assert.EqualError(t, exitErr.Err, "interrupted")
	assert.Empty(t, out.String())
	assert.Empty(t, errOut.String())
}
