package get

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestGetTypePrintFlags: kubectl's output flags on get TYPE, against real
// members. Custom columns address the member object with CLUSTER first;
// --sort-by reads any field (the servers send whole objects then); -L and
// --show-labels read the member objects' labels; templates see what -o
// json prints, with Secret data redacted.
func TestGetTypePrintFlags(t *testing.T) {
	testenv.Require(t, env)
	apply(t, manifests)

	r := runGet(t, "cm", "settings", "-n", "shop", "-o", "custom-columns=NAME:.metadata.name,C:.data.c,KEYS:.data")
	require.NoError(t, r.err)
	assert.Equal(t, "CLUSTER    NAME       C        KEYS\n"+
		"cluster1   settings   <none>   map[a:1 b:2]\n"+
		"cluster2   settings   3        map[a:1 b:2 c:3]\n"+
		"cluster3   settings   <none>   map[a:1 b:2]\n", r.out)

	// Sorting on a field outside the server's columns: the number of data
	// keys differs per member (cluster2 has three), so cluster2 sorts last.
	r = runGet(t, "cm", "settings", "-n", "shop", "--sort-by", "{.data.c}", "--no-headers")
	require.NoError(t, r.err)
	assert.Regexp(t, `^cluster1\s+settings\s+2\s+\S+\ncluster3\s+settings\s+2\s+\S+\ncluster2\s+settings\s+3\s+\S+\n$`, r.out)

	r = runGet(t, "deploy", "-n", "shop", "-L", "app.kubernetes.io/managed-by", "--show-labels")
	require.NoError(t, r.err)
	assert.Regexp(t, `^CLUSTER\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+MANAGED-BY\s+LABELS\n`, r.out)
	assert.Regexp(t, `\ncluster1\s+web\s+0/2\s+0\s+0\s+\S+\s+fedctl\s+app.kubernetes.io/managed-by=fedctl,kubefed.io/managed=true\n`, r.out)

	r = runGet(t, "secrets", "-n", "shop", "-o", `jsonpath={range .items[*]}{.cluster} {.object.metadata.name} {.object.data.password}{"\n"}{end}`)
	require.NoError(t, r.err)
	assert.Equal(t, "cluster1 creds REDACTED\n", r.out, "a template never sees Secret data")

	r = runGet(t, "secrets", "-n", "shop", "-o", "custom-columns=NAME:.metadata.name,PASSWORD:.data.password")
	require.NoError(t, r.err)
	assert.Equal(t, "CLUSTER    NAME    PASSWORD\ncluster1   creds   REDACTED\n", r.out)

	r = runGet(t, "deploy", "-n", "shop", "-o", `go-template={{range .items}}{{.cluster}}={{.object.spec.replicas}} {{end}}`)
	require.NoError(t, r.err)
	assert.Equal(t, "cluster1=2 cluster3=2 ", r.out)
}

// TestGetClustersPrintFlags: kubectl's output flags on get clusters; the
// members' labels are their labels for -L and --show-labels.
func TestGetClustersPrintFlags(t *testing.T) {
	e := testenv.Require(t, env)
	fed := members.New()
	for i, c := range clusterNames {
		region := []string{"eu", "us", "eu"}[i]
		require.NoError(t, fed.Put(members.Member{Name: c, Labels: map[string]string{"region": region, "tier": "prod"}}, false))
	}
	run := func(args ...string) getRun {
		t.Helper()
		return runGetVia(t, fed, e.Kubeconfig, append([]string{"clusters"}, args...)...)
	}

	r := run("-L", "region", "--sort-by", ".labels.region", "--no-headers")
	require.NoError(t, r.err)
	assert.Regexp(t, `^cluster1\s+True\s+v1\.33\.13\s+eu\ncluster3\s+True\s+v1\.33\.13\s+eu\ncluster2\s+True\s+v1\.33\.13\s+us\n$`, r.out)

	r = run("--show-labels")
	require.NoError(t, r.err)
	assert.Regexp(t, `^NAME\s+READY\s+VERSION\s+LABELS\ncluster1\s+True\s+v1\.33\.13\s+region=eu,tier=prod\n`, r.out)

	r = run("-o", "wide", "--show-labels")
	require.NoError(t, r.err)
	assert.Regexp(t, `^NAME\s+READY\s+VERSION\s+CONTEXT\s+MESSAGE\s+LABELS\n`, r.out, "one LABELS column, not two")

	r = run("-o", `jsonpath={.items[?(@.status.conditions[0].status=="True")].name}`)
	require.NoError(t, r.err)
	assert.Equal(t, "cluster1 cluster2 cluster3", r.out)

	r = run("-o", "custom-columns=NAME:.name,REGION:.labels.region,VERSION:.status.kubernetesVersion", "--sort-by", "{.labels.region}")
	require.NoError(t, r.err)
	assert.Equal(t, "NAME       REGION   VERSION\ncluster1   eu       v1.33.13\ncluster3   eu       v1.33.13\ncluster2   us       v1.33.13\n", r.out)

	cols := filepath.Join(t.TempDir(), "cols.txt")
	require.NoError(t, os.WriteFile(cols, []byte("NAME REGION\n.name .labels.region\n"), 0o600))
	r = run("-o", "custom-columns-file="+cols)
	require.NoError(t, r.err)
	assert.Equal(t, "NAME       REGION\ncluster1   eu\ncluster2   us\ncluster3   eu\n", r.out)

	r = run("-o", "jsonpath={.items[}")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "-o jsonpath: error parsing jsonpath {.items[}")
}
