package drain

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three member clusters with controllers, scheduler and kwok, so
// that moved Deployments become Current and nodes have allocatable
// resources.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3, Controllers: true}, &env))
}
