package cmd

import (
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/fedctl/fedctl/"

// Every package under pkg/ is in one of these layers; a new package must be
// put in one here, which is where its import rules are decided.
var (
	// pureStages take data and return data: no client, no federation
	// file, no CLI. The pipeline and everything it runs, and the printers.
	pureStages = []string{
		"pkg/manifest", "pkg/dialect", "pkg/dialect/kubefed", "pkg/dialect/fedv1", "pkg/dialect/karmada", "pkg/federation", "pkg/typeconfig",
		"pkg/placement", "pkg/planner", "pkg/overrides", "pkg/render", "pkg/pipeline", "pkg/explain",
		"pkg/parallel", "pkg/yaml11", "pkg/printers", "pkg/iostreams", "pkg/drift", "pkg/export", "pkg/capacity", "pkg/dns",
	}
	// inputSources read what -f and -k name beyond local files: web
	// servers (-f URL) and kustomizations. Like the pure stages they never
	// reach a cluster or the CLI, and import only pure stages of ours.
	inputSources = []string{"pkg/input"}
	// memberPackages talk to member clusters.
	memberPackages = []string{"pkg/members", "pkg/propagate", "pkg/status", "pkg/inventory", "pkg/liveplan", "pkg/rollout", "pkg/dnssync"}
	// cliHelpers may import cobra: the Face's shared wiring.
	cliHelpers = []string{"pkg/cmdutil"}
	// testHelpers serve tests and the test harness only.
	testHelpers = []string{"pkg/testutil", "pkg/testenv", "pkg/testenv/cmd/fedctl-testenv", "pkg/members/memberstest", "pkg/yaml11/yaml11test"}
)

// clusterClients are client-go's packages that reach an API server.
var clusterClients = []string{
	"k8s.io/client-go/rest", "k8s.io/client-go/dynamic", "k8s.io/client-go/discovery",
	"k8s.io/client-go/kubernetes", "k8s.io/client-go/metadata", "k8s.io/client-go/restmapper",
	"k8s.io/client-go/tools/clientcmd",
}

var cliLibraries = []string{"github.com/spf13/cobra", "github.com/spf13/viper"}

type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// listPackages runs go list on the module, as the import rules are about
// what the build sees.
func listPackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "github.com/fedctl/fedctl/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		t.Fatalf("go list: %v\n%s", err, exitErr.Stderr)
	}
	require.NoError(t, err)
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		pkgs[strings.TrimPrefix(p.ImportPath, module)] = p
	}
	return pkgs
}

// isClient says whether dep is one of client-go's packages that reach a
// server, or a package below one.
func isClient(dep string) bool {
	for _, c := range clusterClients {
		if dep == c || strings.HasPrefix(dep, c+"/") {
			return true
		}
	}
	return false
}

// TestImportRules: the pure stages cannot reach a cluster, a federation file
// or the CLI, through any dependency; only the CLI helpers import cobra or
// viper under pkg/; nothing under pkg/ imports cmd/; every package under
// pkg/ has a layer.
func TestImportRules(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	require.Contains(t, pkgs, "pkg/pipeline", "go list found the module's packages")

	for _, name := range pureStages {
		p, ok := pkgs[name]
		if !assert.True(t, ok, "%s is listed as a pure stage but does not exist", name) {
			continue
		}
		for _, dep := range p.Deps {
			local, ours := strings.CutPrefix(dep, module)
			switch {
			case isClient(dep):
				t.Errorf("pure stage %s depends on %s, a client that reaches clusters", name, dep)
			case slices.Contains(cliLibraries, dep):
				t.Errorf("pure stage %s depends on %s", name, dep)
			case ours && !slices.Contains(pureStages, local):
				t.Errorf("pure stage %s depends on %s, which is not a pure stage", name, local)
			}
		}
	}
	for _, name := range inputSources {
		p, ok := pkgs[name]
		if !assert.True(t, ok, "%s is listed as an input source but does not exist", name) {
			continue
		}
		for _, dep := range p.Deps {
			local, ours := strings.CutPrefix(dep, module)
			switch {
			case isClient(dep):
				t.Errorf("input source %s depends on %s, a client that reaches clusters", name, dep)
			case slices.Contains(cliLibraries, dep):
				t.Errorf("input source %s depends on %s", name, dep)
			case ours && !slices.Contains(pureStages, local):
				t.Errorf("input source %s depends on %s, which is not a pure stage", name, local)
			}
		}
	}
	for name, p := range pkgs {
		if !strings.HasPrefix(name, "pkg/") {
			continue
		}
		known := slices.Contains(pureStages, name) || slices.Contains(inputSources, name) || slices.Contains(memberPackages, name) || slices.Contains(cliHelpers, name) || slices.Contains(testHelpers, name)
		assert.True(t, known, "%s has no layer: put it in one in cmd/imports_test.go", name)
		for _, dep := range p.Deps {
			if slices.Contains(cliLibraries, dep) && !slices.Contains(cliHelpers, name) {
				t.Errorf("%s depends on %s; only %v may, the CLI lives in cmd/", name, dep, cliHelpers)
			}
			if local, ours := strings.CutPrefix(dep, module); ours && (local == "cmd" || strings.HasPrefix(local, "cmd/")) {
				t.Errorf("%s depends on %s: pkg/ never imports the commands", name, local)
			}
		}
	}
}

// TestImportRulesCatchAViolation: the check above fails on the kind of
// import it exists for, so that it cannot pass by finding nothing.
func TestImportRulesCatchAViolation(t *testing.T) {
	t.Parallel()
	pkgs := listPackages(t)
	assert.True(t, slices.ContainsFunc(pkgs["pkg/members"].Deps, isClient), "members reaches clusters, as it should")
	assert.False(t, slices.ContainsFunc(pkgs["pkg/pipeline"].Deps, isClient), "the pipeline does not")
	assert.Contains(t, pkgs["pkg/cmdutil"].Deps, "github.com/spf13/cobra")
}
