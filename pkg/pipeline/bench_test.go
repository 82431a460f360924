package pipeline_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
	// files are the files of the --output-dir tree, for writeFilesSerial;
	// filled on first use.
	files []treeFile
}

// treeFile is one file of an --output-dir tree: its path relative to the
// tree and its bytes.
type treeFile struct {
	path string
	data []byte
}

var (
	benchInputsMu sync.Mutex
	benchInputs   = map[int]*benchInput{}
	benchDir      string
	treeDir       string
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

// treeRoot returns a new directory for the trees the benchmarks write, on
// the disk of FEDCTL_BENCH_DIR (make bench-render sets it to the
// repository's .cache, since the temporary directory can be a tmpfs), or
// of the temporary directory. Trees stay until the process ends (TestMain):
// on ext4 without a journal, files created in the minute after others were
// deleted cost far more (see printers.WriteTree), and removing a tree
// between two measurements would measure that.
func treeRoot(tb testing.TB) string {
	tb.Helper()
	benchInputsMu.Lock()
	defer benchInputsMu.Unlock()
	if treeDir == "" {
		parent := os.Getenv("FEDCTL_BENCH_DIR")
		if parent != "" {
			if err := os.MkdirAll(parent, 0o755); err != nil {
				tb.Fatal(err)
			}
		}
		dir, err := os.MkdirTemp(parent, "fedctl-bench-trees-")
		if err != nil {
			tb.Fatal(err)
		}
		treeDir = dir
	}
	dir, err := os.MkdirTemp(treeDir, "")
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, dir := range []string{benchDir, treeDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
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
// load the federation file, read the manifests, pipeline.Run, then print.
func renderCorpus(b *testing.B, in *benchInput, print func(targets []render.Target) error) int {
	file, err := members.Load(in.federation)
	if err != nil {
		b.Fatal(err)
	}
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(b, in.manifests), DefaultNamespace: "default", Members: file.Federation.PlacementClusters(), Types: testutil.Registry(b, file.Federation)})
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
// "render --output-dir" does, on the disk of treeRoot.
func renderOutputDir(b *testing.B, in *benchInput) {
	root := treeRoot(b)
	var n, round int
	for b.Loop() {
		round++
		n = renderCorpus(b, in, writeTree(filepath.Join(root, fmt.Sprint(round))))
	}
	b.ReportMetric(float64(n), "objects")
}

// renderOutputDirRerun writes over the tree an earlier run wrote, as every
// "render --output-dir" after the first does; nothing changed in between.
func renderOutputDirRerun(b *testing.B, in *benchInput) {
	dir := filepath.Join(treeRoot(b), "tree")
	renderCorpus(b, in, writeTree(dir))
	var n int
	for b.Loop() {
		n = renderCorpus(b, in, writeTree(dir))
	}
	b.ReportMetric(float64(n), "objects")
}

// writeFilesSerial is the file system's part of the cost of --output-dir:
// the same files, already encoded, written one after the other into an
// empty directory on the disk of treeRoot, each directory made once.
func writeFilesSerial(b *testing.B, in *benchInput) {
	files := treeFiles(b, in)
	root := treeRoot(b)
	var round int
	for b.Loop() {
		round++
		dir := filepath.Join(root, fmt.Sprint(round))
		made := map[string]bool{}
		for _, f := range files {
			path := filepath.Join(dir, f.path)
			if sub := filepath.Dir(path); !made[sub] {
				if err := os.MkdirAll(sub, 0o755); err != nil {
					b.Fatal(err)
				}
				made[sub] = true
			}
			if err := os.WriteFile(path, f.data, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(files)), "objects")
}

// treeFiles renders the corpus once and returns the files of its tree,
// encoded with sigs.k8s.io/yaml, whose bytes WriteTree writes
// (TestRenderCorpus).
func treeFiles(tb testing.TB, in *benchInput) []treeFile {
	tb.Helper()
	benchInputsMu.Lock()
	defer benchInputsMu.Unlock()
	if in.files != nil {
		return in.files
	}
	file, err := members.Load(in.federation)
	if err != nil {
		tb.Fatal(err)
	}
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(tb, in.manifests), DefaultNamespace: "default", Members: file.Federation.PlacementClusters(), Types: testutil.Registry(tb, file.Federation)})
	if err != nil {
		tb.Fatal(err)
	}
	for _, t := range out.Result.Targets {
		ns := t.Namespace()
		if ns == "" {
			ns = "_cluster"
		}
		data, err := yaml.Marshal(t.Object)
		if err != nil {
			tb.Fatal(err)
		}
		in.files = append(in.files, treeFile{filepath.Join(t.Cluster, ns, strings.ToLower(t.Type.Kind)+"_"+t.Name()+".yaml"), data})
	}
	return in.files
}

// writeTree returns the printer of "render --output-dir dir".
func writeTree(dir string) func([]render.Target) error {
	clusters := make([]string, len(corpusMembers))
	for i, m := range corpusMembers {
		clusters[i] = m.Name
	}
	return func(t []render.Target) error { return printers.WriteTree(dir, clusters, t) }
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
	var n, round int
	for b.Loop() {
		round++
		dir := filepath.Join(root, fmt.Sprint(round))
		n = renderCorpus(b, in, writeTree(dir))
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
	{"RenderOutputDirRerun", renderOutputDirRerun},
	{"WriteFilesSerial", writeFilesSerial},
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

func BenchmarkRenderOutputDirRerun(b *testing.B) { bySize(b, renderOutputDirRerun) }
func BenchmarkWriteFilesSerial(b *testing.B)     { bySize(b, writeFilesSerial) }

func BenchmarkRenderOutputDirTmpfs(b *testing.B) { bySize(b, renderOutputDirTmpfs) }
