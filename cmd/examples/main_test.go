// Package examples runs every example of fedctl's --help, and every fedctl
// command of README.md, as a user types it, against three live clusters
// (issue 11: "every --help example is executed by a test"). It holds tests
// only.
package examples

import (
	"os"
	"testing"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// env holds three member clusters with controllers, scheduler and kwok:
// the --wait examples need Deployments that really become Ready, and
// delete's Namespaces really go away.
var env *testenv.Env

func TestMain(m *testing.M) {
	os.Exit(testenv.RunMain(m, testenv.Options{Clusters: 3, Controllers: true}, &env))
}
