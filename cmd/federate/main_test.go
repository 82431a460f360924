package federate

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds one real member cluster for the live federate tests.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 2}, &env))
}
