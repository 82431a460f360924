package enable_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/cmd/disable"
	"github.com/fedctl/fedctl/cmd/enable"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds two real member clusters. cluster1 is tidy; cluster2 is
// crowded with CRDs whose names collide with built-in types and with an
// aggregated API that cannot be reached (see crowd). -short starts none.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 2}, &env))
}

// fixture is a federation file and the kubeconfig fedctl reaches members
// with.
type fixture struct {
	path       string // the federation file
	kubeconfig string
}

// newFixture writes a federation file whose members are the given clusters
// of the test environment; with none, the file does not exist.
func newFixture(t *testing.T, clusters ...string) fixture {
	t.Helper()
	e := testenv.Require(t, env)
	fx := fixture{path: filepath.Join(t.TempDir(), "federation.yaml"), kubeconfig: e.Kubeconfig}
	if len(clusters) > 0 {
		fed := members.New()
		for _, c := range clusters {
			require.NoError(t, fed.Put(members.Member{Name: c}, false))
		}
		fx.save(t, fed)
	}
	return fx
}

func (fx fixture) save(t *testing.T, fed *members.Federation) {
	t.Helper()
	f, err := members.Load(fx.path)
	require.NoError(t, err)
	require.NoError(t, f.Save(fed))
}

func (fx fixture) load(t *testing.T) *members.Federation {
	t.Helper()
	f, err := members.Load(fx.path)
	require.NoError(t, err)
	return f.Federation
}

// read returns the federation file's bytes, or nil when it does not exist.
func (fx fixture) read(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(fx.path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return data
}

func (fx fixture) factory(ios *iostreams.IOStreams) *cmdutil.Factory {
	return &cmdutil.Factory{
		IOStreams: ios,
		Settings: func() (cmdutil.Settings, error) {
			return cmdutil.Settings{ConfigPath: fx.path, Kubeconfig: fx.kubeconfig, Color: "never"}, nil
		},
		Federation: func() (*members.File, error) { return members.Load(fx.path) },
		Access: func() (members.Access, error) {
			return members.Access{Kubeconfig: fx.kubeconfig, BaseDir: filepath.Dir(fx.path), UserAgent: "fedctl-test"}, nil
		},
	}
}

type result struct {
	out, errOut string
	err         error
}

// run executes "fedctl enable ARGS" or "fedctl disable ARGS" against fx.
func (fx fixture) run(t *testing.T, args ...string) result {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := fx.factory(ios)
	var cmd *cobra.Command
	switch args[0] {
	case "enable":
		cmd = enable.NewCmdEnable(f, nil)
	case "disable":
		cmd = disable.NewCmdDisable(f, nil)
	default:
		t.Fatalf("unknown command %q", args[0])
	}
	cmd.SetArgs(args[1:])
	cmd.SetIn(&bytes.Buffer{})
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return result{out: out.String(), errOut: errOut.String(), err: err}
}
