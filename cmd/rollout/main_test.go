// Package rollout holds the end-to-end tests of apply --rollout and
// delete --rollout: they need controllers, a scheduler and kwok so that
// Deployments become available, which the apply and delete packages' own
// clusters do without.
package rollout

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three member clusters with controllers, scheduler and kwok.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3, Controllers: true}, &env))
}
