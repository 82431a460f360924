package cmd

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three real member clusters (kube-apiserver + etcd) for the
// end-to-end tests of this package; -short starts none.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3}, &env))
}
