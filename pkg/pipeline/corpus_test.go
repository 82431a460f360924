package pipeline_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/testutil"
)

// runCorpus renders a corpus of the given size the way "fedctl render" does.
func runCorpus(t *testing.T, size int) *pipeline.Output {
	t.Helper()
	manifests, federation := writeCorpus(t, t.TempDir(), size)
	file, err := members.Load(federation)
	require.NoError(t, err)
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, manifests), DefaultNamespace: "default", Members: file.Federation.PlacementClusters(), Types: testutil.Registry(t, file.Federation)})
	require.NoError(t, err)
	require.NoError(t, out.Result.Err())
	require.Empty(t, out.Result.Warnings)
	return out
}

// TestRenderCorpus renders the benchmark corpus (large enough to decode on
// several goroutines) and checks the writers against the libraries that
// define their output, object by object, and the whole output against
// digests taken before rendering was optimized.
func TestRenderCorpus(t *testing.T) {
	t.Parallel()
	out := runCorpus(t, 100)
	targets := out.Result.Targets
	require.Equal(t, 914, len(targets), "member objects")

	var wantYAML bytes.Buffer
	for _, tg := range targets {
		data, err := yaml.Marshal(tg.Object)
		require.NoError(t, err)
		fmt.Fprintf(&wantYAML, "---\n# Source: %s\n%s", tg.Cluster, data)
	}
	var gotYAML bytes.Buffer
	require.NoError(t, printers.RenderedYAML(&gotYAML, targets))
	require.Equal(t, wantYAML.String(), gotYAML.String(), "-o yaml is sigs.k8s.io/yaml.Marshal of each object")

	var gotJSON bytes.Buffer
	require.NoError(t, printers.RenderedJSON(&gotJSON, targets))
	var envelope struct {
		Clusters []struct {
			Name    string            `json:"name"`
			Objects []json.RawMessage `json:"objects"`
		} `json:"clusters"`
	}
	require.NoError(t, json.Unmarshal(gotJSON.Bytes(), &envelope))
	i := 0
	for _, c := range envelope.Clusters {
		for _, raw := range c.Objects {
			want, err := json.Marshal(targets[i].Object)
			require.NoError(t, err)
			require.Equal(t, targets[i].Cluster, c.Name)
			require.Equal(t, string(want), string(raw), "-o json is json.Marshal of each object")
			i++
		}
	}
	require.Equal(t, len(targets), i)

	dir := filepath.Join(t.TempDir(), "tree")
	clusters := make([]string, len(corpusMembers))
	for i, m := range corpusMembers {
		clusters[i] = m.Name
	}
	require.NoError(t, printers.WriteTree(dir, clusters, targets))
	for _, tg := range targets {
		ns := tg.Namespace()
		if ns == "" {
			ns = "_cluster"
		}
		got, err := os.ReadFile(filepath.Join(dir, tg.Cluster, ns, strings.ToLower(tg.Type.Kind)+"_"+tg.Name()+".yaml"))
		require.NoError(t, err)
		want, err := yaml.Marshal(tg.Object)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "--output-dir files are sigs.k8s.io/yaml.Marshal of each object")
	}

	// The digests were taken with fedctl before its render was optimized
	// (commit 1adcddf): decoding, rendering and writing give the same bytes.
	digests := fmt.Sprintf("yaml %x\njson %x\n", sha256.Sum256(gotYAML.Bytes()), sha256.Sum256(gotJSON.Bytes()))
	testutil.AssertGolden(t, []byte(digests), "testdata/corpus-100.sha256")
}

// TestRenderCorpusIsDeterministic renders twice: parallel decoding must
// not change a byte.
func TestRenderCorpusIsDeterministic(t *testing.T) {
	t.Parallel()
	render := func() string {
		var b bytes.Buffer
		require.NoError(t, printers.RenderedJSON(&b, runCorpus(t, 80).Result.Targets))
		return b.String()
	}
	assert.Equal(t, render(), render())
}
