package pipeline_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBenchReport runs every benchmark at every size in one process,
// interleaved round by round so that machine noise hits floors and renders
// alike, and prints the engine issue's table: times, the ratios to the
// floors the requirement sets, cost per member object at each size (flat
// when cost is linear) and, given the fedctl binary, its peak RSS. It is
// what "make bench" runs; it asserts nothing, since timings are not tests.
//
//	FEDCTL_BENCH_REPORT=1 [FEDCTL_BENCH_ROUNDS=3] [FEDCTL_BENCH_BIN=bin/fedctl] [FEDCTL_BENCH_DIR=.cache] go test ./pkg/pipeline -run TestBenchReport -v -timeout 1h
func TestBenchReport(t *testing.T) {
	if os.Getenv("FEDCTL_BENCH_REPORT") == "" {
		t.Skip("set FEDCTL_BENCH_REPORT=1 to run the benchmarks and print the report (make bench)")
	}
	rounds := 3
	if s := os.Getenv("FEDCTL_BENCH_ROUNDS"); s != "" {
		var err error
		if rounds, err = strconv.Atoi(s); err != nil || rounds < 1 {
			t.Fatalf("FEDCTL_BENCH_ROUNDS=%q: want a positive number", s)
		}
	}
	type key struct {
		bench string
		size  int
	}
	times := map[key][]time.Duration{}
	objects := map[int]int{}
	for r := range rounds {
		for _, size := range benchSizes {
			in := inputFor(t, size)
			for _, bm := range benchmarks {
				if bm.name == "RenderOutputDirTmpfs" && shmDir == "" {
					continue
				}
				res := testing.Benchmark(func(b *testing.B) { bm.run(b, in) })
				if res.N == 0 {
					t.Fatalf("%s at %d deployments failed", bm.name, size)
				}
				d := time.Duration(res.NsPerOp())
				times[key{bm.name, size}] = append(times[key{bm.name, size}], d)
				if n, ok := res.Extra["objects"]; ok {
					objects[size] = int(n)
				}
				t.Logf("round %d/%d: %-20s deployments=%-5d %8.3fs", r+1, rounds, bm.name, size, d.Seconds())
			}
		}
	}
	// The fastest of the rounds: noise only ever adds time.
	best := func(name string, size int) time.Duration { return slices.Min(times[key{name, size}]) }
	var names []string
	for _, bm := range benchmarks {
		if len(times[key{bm.name, benchSizes[0]}]) > 0 {
			names = append(names, bm.name)
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\nBest of %d rounds, seconds; GOMAXPROCS=%d.\n\n", rounds, runtime.GOMAXPROCS(0))
	fmt.Fprintf(&b, "%-12s %-8s", "deployments", "objects")
	for _, n := range names {
		fmt.Fprintf(&b, " %20s", n)
	}
	b.WriteString("\n")
	for _, size := range benchSizes {
		fmt.Fprintf(&b, "%-12d %-8d", size, objects[size])
		for _, n := range names {
			fmt.Fprintf(&b, " %20.3f", best(n, size).Seconds())
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nRatios to the floors (targets: json ≤ 1.5 × FloorJSON; yaml and output-dir ≤ 1.2 × FloorYAML):\n")
	fmt.Fprintf(&b, "%-12s %16s %16s %16s", "deployments", "json/FloorJSON", "yaml/FloorYAML", "dir/FloorYAML")
	if slices.Contains(names, "RenderOutputDirTmpfs") {
		fmt.Fprintf(&b, " %16s", "tmpfs/FloorYAML")
	}
	b.WriteString("\n")
	for _, size := range benchSizes {
		fy, fj := best("FloorYAML", size), best("FloorJSON", size)
		fmt.Fprintf(&b, "%-12d %16.2f %16.2f %16.2f", size, ratio(best("RenderJSON", size), fj), ratio(best("RenderYAML", size), fy), ratio(best("RenderOutputDir", size), fy))
		if slices.Contains(names, "RenderOutputDirTmpfs") {
			fmt.Fprintf(&b, " %16.2f", ratio(best("RenderOutputDirTmpfs", size), fy))
		}
		b.WriteString("\n")
	}
	floor := func(size int) time.Duration { return best("WriteFilesSerial", size) + best("RenderYAML", size) }
	fmt.Fprintf(&b, "\n--output-dir against writing the same files serially plus render -o yaml (target ≤ 1.5×),\non %s (%s); rerun: over the tree of an earlier run:\n", fileSystem(treeDir), treeDir)
	fmt.Fprintf(&b, "%-12s %18s %18s %18s\n", "deployments", "write+yaml (s)", "dir/(write+yaml)", "rerun/(write+yaml)")
	for _, size := range benchSizes {
		fmt.Fprintf(&b, "%-12d %18.3f %18.2f %18.2f\n", size, floor(size).Seconds(), ratio(best("RenderOutputDir", size), floor(size)), ratio(best("RenderOutputDirRerun", size), floor(size)))
	}
	fmt.Fprintf(&b, "\nCost per member object (µs), flat when cost grows linearly:\n%-20s", "")
	for _, size := range benchSizes {
		fmt.Fprintf(&b, " %10s", fmt.Sprintf("n=%d", size))
	}
	b.WriteString("\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%-20s", n)
		for _, size := range benchSizes {
			fmt.Fprintf(&b, " %10.1f", float64(best(n, size).Microseconds())/float64(objects[size]))
		}
		b.WriteString("\n")
	}
	if bin := os.Getenv("FEDCTL_BENCH_BIN"); bin != "" {
		size := benchSizes[len(benchSizes)-1]
		in := inputFor(t, size)
		fmt.Fprintf(&b, "\nPeak RSS of %s at %d deployments (limit 300 MB):\n", bin, size)
		for _, args := range [][]string{{"-o", "yaml"}, {"-o", "json"}, {"--output-dir", filepath.Join(treeRoot(t), "out")}} {
			rss, wall := peakRSS(t, bin, append([]string{"render", "-f", in.manifests, "--config", in.federation}, args...))
			fmt.Fprintf(&b, "  %-20s %6.1f MB  %6.2fs\n", args[0]+" "+filepath.Base(args[1]), float64(rss)/1024/1024, wall.Seconds())
		}
		// convert renders, then writes Karmada's templates and policies;
		// --verify reads them back through the Karmada dialect. Its exit
		// code is 3 when the corpus has constructs Karmada approximates.
		fmt.Fprintf(&b, "convert --to karmada at %d deployments (the render above is its floor):\n", size)
		for _, args := range [][]string{{"--to", "karmada"}, {"--to", "karmada", "--verify"}} {
			rss, wall := peakRSS(t, bin, append([]string{"convert", "-f", in.manifests, "--config", in.federation}, args...), 3)
			fmt.Fprintf(&b, "  %-20s %6.1f MB  %6.2fs\n", strings.Join(args[1:], " "), float64(rss)/1024/1024, wall.Seconds())
		}
	}
	t.Log(b.String())
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// fileSystem names the type of the file system dir is on, as GNU stat -f
// prints it (tmpfs, xfs, ext2/ext3...), or says it is unknown. ext2, ext3
// and ext4 share one magic number, so stat cannot tell them apart.
func fileSystem(dir string) string {
	out, err := exec.Command("stat", "-f", "-c", "%T", dir).Output()
	if err != nil {
		return "a file system of unknown type"
	}
	if name := strings.TrimSpace(string(out)); name != "ext2/ext3" {
		return name
	}
	return "ext2/ext3/ext4"
}

// peakRSS runs bin with its standard output discarded and returns its peak
// resident set size in bytes and its wall time. The kernel's count for a
// child of this process (getrusage) would include this process's own size:
// Go starts children with vfork, and exec records the high-water mark of
// the memory the child shared with its parent. So GNU time, which forks
// normally, measures when it is installed; otherwise VmHWM is read from
// /proc while the child runs.
// okExit are exit codes besides 0 that count as a run (convert's 3).
func peakRSS(t *testing.T, bin string, args []string, okExit ...int) (int64, time.Duration) {
	t.Helper()
	if _, err := os.Stat(gnuTime); err == nil {
		out := filepath.Join(t.TempDir(), "time")
		run(t, exec.Command(gnuTime, append([]string{"-o", out, "-f", "%M %e", bin}, args...)...), okExit...)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var kb int64
		var secs float64
		// The last line: before it, GNU time says a command exited non-zero.
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		if _, err := fmt.Sscan(lines[len(lines)-1], &kb, &secs); err != nil {
			t.Fatalf("/usr/bin/time wrote %q: %v", data, err)
		}
		return kb * 1024, time.Duration(secs * float64(time.Second))
	}
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var hwm int64
	for {
		if kb, ok := vmHWM(cmd.Process.Pid); ok {
			hwm = max(hwm, kb*1024)
		}
		select {
		case err := <-done:
			if err != nil && !exitedWith(err, okExit) {
				t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
			}
			return hwm, time.Since(start)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

var gnuTime = "/usr/bin/time"

// vmHWM reads the peak resident set size, in kilobytes, of a running
// process.
func vmHWM(pid int) (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}

func run(t *testing.T, cmd *exec.Cmd, okExit ...int) {
	t.Helper()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil && !exitedWith(err, okExit) {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
}

// exitedWith says err is a process's exit with one of codes.
func exitedWith(err error, codes []int) bool {
	var exit *exec.ExitError
	return errors.As(err, &exit) && slices.Contains(codes, exit.ExitCode())
}
