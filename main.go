// Command fedctl ships one set of Kubernetes manifests to many clusters,
// entirely client side.
package main

import (
	"os"

	"github.com/fedctl/fedctl/cmd"
)

func main() {
	os.Exit(cmd.Main())
}
