package delete

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three real member clusters for the end-to-end delete tests.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3}, &env))
}
