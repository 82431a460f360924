package convert

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests off the user's own kubeconfig: the printed
// registration commands name the file that holds a member's context
// (members.Access.ContextFile), found through KUBECONFIG.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fedctl-convert-test")
	if err != nil {
		panic(err)
	}
	os.Setenv("KUBECONFIG", filepath.Join(dir, "none"))
	os.Setenv("HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
