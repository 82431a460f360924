package unjoin

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three member clusters with controllers, for unjoin --drain,
// which waits for moved Deployments and removed Namespaces.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3, Controllers: true}, &env))
}
