package pipeline_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/testutil"
)

// benchSizes are the corpus sizes (FederatedDeployments) every benchmark
// runs at; cost must grow linearly with them.
var benchSizes = []int{500, 1000, 2000}

// benchInput is one corpus size, on disk for the render benchmarks and in
// memory for the floors.
type benchInput struct {
	size                  int
	manifests, federation string
	yamlDocs, jsonDocs    [][]byte
	members               int
}

var (
	benchInputsMu sync.Mutex
	benchInputs   = map[int]*benchInput{}
	benchDir      string
)

// inputFor generates the corpus of the given size once per process, in a
// directory removed by TestMain.
func inputFor(tb testing.TB, size int) *benchInput {
	tb.Helper()
	benchInputsMu.Lock()
	defer benchInputsMu.Unlock()
	if in, ok := benchInputs[size]; ok {
		return in
	}
	if benchDir == "" {
		dir, err := os.MkdirTemp("", "fedctl-bench-")
		if err != nil {
			tb.Fatal(err)
		}
		benchDir = dir
	}
	in := &benchInput{size: size, members: len(corpusMembers)}
	in.manifests, in.federation = writeCorpus(tb, filepath.Join(benchDir, fmt.Sprint(size)), size)
	in.yamlDocs = corpusDocs(size)
	for _, d := range in.yamlDocs {
		j, err := yaml.YAMLToJSON(d)
		if err != nil {
			tb.Fatal(err)
		}
		in.jsonDocs = append(in.jsonDocs, j)
	}
	benchInputs[size] = in
	return in
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// The floor of the requirement: decode every input document once and encode
// it once per member with the same serializer, nothing else.

func floorYAML(b *testing.B, in *benchInput) {
	for b.Loop() {
		for _, d := range in.yamlDocs {
			var v any
			if err := yaml.Unmarshal(d, &v); err != nil {
				b.Fatal(err)
			}
			for range in.members {
				out, err := yaml.Marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				io.Discard.Write(out)
			}
		}
	}
}

func floorJSON(b *testing.B, in *benchInput) {
	for b.Loop() {
		for _, d := range in.jsonDocs {
			var v any
			if err := json.Unmarshal(d, &v); err != nil {
				b.Fatal(err)
			}
			for range in.members {
				out, err := json.Marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				io.Discard.Write(out)
			}
		}
	}
}

// render runs what "fedctl render -f MANIFESTS --config FEDERATION" runs:
// load the federation file, pipeline.Run, then print.
func renderCorpus(b *testing.B, in *benchInput, print func(targets []render.Target) error) int {
	file, err := members.Load(in.federation)
	if err != nil {
		b.Fatal(err)
	}
	out, err := pipeline.Run(pipeline.Input{Filenames: []string{in.manifests}, DefaultNamespace: "default", Members: file.Federation.PlacementClusters(), Types: testutil.Registry(b, file.Federation)})
	if err != nil {
		b.Fatal(err)
	}
	if err := out.Result.Err(); err != nil {
		b.Fatal(err)
	}
	if err := print(out.Result.Targets); err != nil {
		b.Fatal(err)
	}
	return len(out.Result.Targets)
}

func renderYAML(b *testing.B, in *benchInput) {
	var n int
	for b.Loop() {
		n = renderCorpus(b, in, func(t []render.Target) error { return printers.RenderedYAML(io.Discard, t) })
	}
	b.ReportMetric(float64(n), "objects")
}

func renderJSON(b *testing.B, in *benchInput) {
	var n int
	for b.Loop() {
		n = renderCorpus(b, in, func(t []render.Target) error { return printers.RenderedJSON(io.Discard, t) })
	}
	b.ReportMetric(float64(n), "objects")
}

// renderOutputDir writes into an empty directory each time, as a first
// "render --output-dir" does, on the disk of the temporary directory.
func renderOutputDir(b *testing.B, in *benchInput) {
	renderOutputDirIn(b, in, b.TempDir())
}

// shmDir is a tmpfs directory, when the machine has one. Writing the tree
// there shows the cost of fedctl's own code; on a disk, creating 20,000
// files can cost more than rendering them, and varies with the machine.
var shmDir = func() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		return "/dev/shm"
	}
	return ""
}()

func renderOutputDirTmpfs(b *testing.B, in *benchInput) {
	if shmDir == "" {
		b.Skip("no /dev/shm")
	}
	root, err := os.MkdirTemp(shmDir, "fedctl-bench-")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(root)
	renderOutputDirIn(b, in, root)
}

func renderOutputDirIn(b *testing.B, in *benchInput, root string) {
	clusters := make([]string, len(corpusMembers))
	for i, m := range corpusMembers {
		clusters[i] = m.Name
	}
	var n, round int
	for b.Loop() {
		round++
		dir := filepath.Join(root, fmt.Sprint(round))
		n = renderCorpus(b, in, func(t []render.Target) error { return printers.WriteTree(dir, clusters, t) })
		b.StopTimer()
		if err := os.RemoveAll(dir); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(n), "objects")
}

// benchmarks are run by the Benchmark functions below, and all together,
// interleaved, by TestBenchReport.
var benchmarks = []struct {
	name string
	run  func(*testing.B, *benchInput)
}{
	{"FloorYAML", floorYAML},
	{"FloorJSON", floorJSON},
	{"RenderYAML", renderYAML},
	{"RenderJSON", renderJSON},
	{"RenderOutputDir", renderOutputDir},
	{"RenderOutputDirTmpfs", renderOutputDirTmpfs},
}

func bySize(b *testing.B, run func(*testing.B, *benchInput)) {
	for _, size := range benchSizes {
		b.Run(fmt.Sprintf("deployments=%d", size), func(b *testing.B) {
			run(b, inputFor(b, size))
		})
	}
}

func BenchmarkFloorYAML(b *testing.B)       { bySize(b, floorYAML) }
func BenchmarkFloorJSON(b *testing.B)       { bySize(b, floorJSON) }
func BenchmarkRenderYAML(b *testing.B)      { bySize(b, renderYAML) }
func BenchmarkRenderJSON(b *testing.B)      { bySize(b, renderJSON) }
func BenchmarkRenderOutputDir(b *testing.B) { bySize(b, renderOutputDir) }

func BenchmarkRenderOutputDirTmpfs(b *testing.B) { bySize(b, renderOutputDirTmpfs) }
