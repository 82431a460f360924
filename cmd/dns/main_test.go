package dns

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three member clusters with controllers, scheduler and kwok, so
// that Services get EndpointSlices of ready pods.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3, Controllers: true}, &env))
}
